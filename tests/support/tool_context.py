"""A tool context over a freshly indexed vault (a plugin of the root conftest: the tools and the safety tests)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from sentinel.embed.base import Embedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.embedding import embed_pending
from sentinel.tools.context import Origin, ToolContext
from tests.support.vault import WriteVault

MakeContext = Callable[..., ToolContext]


@pytest.fixture
def make_ctx(vault_settings: WriteVault) -> MakeContext:
    """A tool context over a freshly indexed vault made of the given files."""

    def make(files: dict[str, str], origin: Origin = Origin.MODEL, **overrides: object) -> ToolContext:
        settings = vault_settings(files)
        for key, value in overrides.items():
            setattr(settings, key, value)
        sync(settings, open_index(settings))
        return ToolContext(settings=settings, origin=origin)

    return make


def embedded(ctx: ToolContext, embedder: Embedder) -> ToolContext:
    """``ctx`` with ``embedder`` (the real e5 in the answer tests), every passage of its vault embedded."""
    ctx = replace(ctx, embedder=embedder)
    embed_pending(ctx.writer(), embedder)
    return ctx
