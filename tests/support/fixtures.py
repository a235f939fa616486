"""Session fixtures over the real llama.cpp server, for any area's conftest:

    from tests.support.fixtures import llama_settings, llama_url  # noqa: F401

However many conftests import them, one server runs per test session (startup ~3-8 s, ~0.6 GB): pytest
treats each import as its own fixture, so the server itself is kept here and shared. Requests to it are served
one at a time.
"""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from sentinel.settings import ProviderSettings
from tests.support.llama import MODEL_ALIAS, llama_server

LLAMA_CTX = 4096

_running: dict[str, str] = {}
_stack = ExitStack()


@pytest.fixture(scope="session")
def llama_url(request: pytest.FixtureRequest) -> str:
    """OpenAI base URL (up to /v1) of a real llama.cpp server with Qwen2.5-Coder-0.5B (ctx 4096)."""
    if "url" not in _running:
        _running["url"] = _stack.enter_context(llama_server(ctx=LLAMA_CTX))
        request.addfinalizer(_stop)
    return _running["url"]


def _stop() -> None:
    _running.clear()
    _stack.close()


@pytest.fixture(scope="session")
def llama_settings(llama_url: str) -> ProviderSettings:
    """Provider settings of a role served by that server (``provider_for(llama_settings)``)."""
    return ProviderSettings(kind="openai", base_url=llama_url, model=MODEL_ALIAS, num_ctx=LLAMA_CTX)
