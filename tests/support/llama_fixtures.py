"""Session fixtures over the real llama.cpp server (a plugin of the root conftest): one server per test session,
started by the first test that asks (startup ~3-8 s, ~0.6 GB). Requests to it are served one at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sentinel.settings import ProviderSettings
from tests.support.llama import LLAMA_CTX, MODEL_ALIAS, llama_server


@pytest.fixture(scope="session")
def llama_url() -> Iterator[str]:
    """OpenAI base URL (up to /v1) of a real llama.cpp server with Qwen2.5-Coder-0.5B (ctx 4096)."""
    with llama_server(ctx=LLAMA_CTX) as url:
        yield url


@pytest.fixture(scope="session")
def llama_settings(llama_url: str) -> ProviderSettings:
    """Provider settings of a role served by that server (``provider_for(llama_settings)``)."""
    return ProviderSettings(kind="openai", base_url=llama_url, model=MODEL_ALIAS, num_ctx=LLAMA_CTX)
