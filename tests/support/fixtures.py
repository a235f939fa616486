"""Session fixtures over the real llama.cpp server, for any area's conftest:

    from tests.support.fixtures import llama_settings, llama_url  # noqa: F401

One server per test session (startup ~3 s, ~0.6 GB); requests to it are served one at a time.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sentinel.settings import ProviderSettings
from tests.support.llama import MODEL_ALIAS, llama_server

LLAMA_CTX = 4096


@pytest.fixture(scope="session")
def llama_url() -> Iterator[str]:
    """OpenAI base URL (up to /v1) of a real llama.cpp server with Qwen2.5-Coder-0.5B, 2 threads."""
    with llama_server(ctx=LLAMA_CTX) as url:
        yield url


@pytest.fixture(scope="session")
def llama_settings(llama_url: str) -> ProviderSettings:
    """Provider settings of a role served by that server (``provider_for(llama_settings)``)."""
    return ProviderSettings(kind="openai", base_url=llama_url, model=MODEL_ALIAS, num_ctx=LLAMA_CTX)
