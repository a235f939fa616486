"""Chat harness fixtures: a session over a real indexed vault and the real tools, driven by a scripted model
(tests that must force a model behaviour) or by the real small Qwen through llama.cpp (the end-to-end test)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from sentinel.chat.session import ChatSession, system_prompt_of
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.tools.context import ToolContext
from tests.support.chat_session import PAGES, SCRIPTED_COST, SYSTEM_PROMPT_FILE, MakeSession
from tests.support.scripted import Reply, ScriptedProvider
from tests.support.vault import WriteVault


@pytest.fixture
def make_session(vault_settings: WriteVault) -> MakeSession:
    """A chat session over a freshly indexed vault (``PAGES`` unless given), answering from ``replies``."""

    def make(
        replies: Iterable[Reply] = (), files: dict[str, str] | None = None, num_ctx: int = 8192, **chat: object
    ) -> tuple[ChatSession, ScriptedProvider]:
        settings = vault_settings(PAGES if files is None else files)
        settings.chat = settings.chat.model_copy(update={"system_prompt_file": SYSTEM_PROMPT_FILE, **chat})
        sync(settings, open_index(settings))
        provider = ScriptedProvider(replies, num_ctx=num_ctx)
        ctx = ToolContext(settings=settings)
        return ChatSession(ctx, provider, system_prompt_of(settings), SCRIPTED_COST), provider

    return make
