"""Every way search can end up lexical-only is found before the first question (seed 000: never quietly)."""

from __future__ import annotations

import socket

from sentinel.chat.startup import SearchMode, search_mode
from sentinel.embed.http import HttpEmbedder
from sentinel.embed.onnx import OnnxEmbedder, locate_model_files
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending
from sentinel.tools.context import ToolContext
from tests.support.chat_session import PAGES
from tests.support.embedder import E5_DIR
from tests.support.vault import WriteVault


def test_search_mode_names_each_reason_for_lexical_only_search(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    assert "no embedder is configured (pass --embed-model" in str(search_mode(ToolContext(settings)).lexical_only)

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    dead = ToolContext(settings, embedder=HttpEmbedder(f"http://127.0.0.1:{closed}", timeout_s=2))
    assert "the configured embedder does not answer" in str(search_mode(dead).lexical_only)

    locate_model_files(E5_DIR)  # a missing model fails here, naming `make models`
    e5 = OnnxEmbedder(E5_DIR, threads=1, batch=16)
    ctx = ToolContext(settings, embedder=e5)
    assert "nothing in the index has been embedded yet" in str(search_mode(ctx).lexical_only)

    embed_pending(db, e5)
    assert search_mode(ctx) == SearchMode()  # both halves, nothing to say

    (settings.vault / "notes/New.md").write_text("# New\n\nA page written after the last embedding pass.\n")
    sync(settings, db)
    mode = search_mode(ctx)
    assert mode.lexical_only is None
    assert mode.partial is not None
    assert "still filling: chunks 3 of 4 pages (75%), summaries 2 of 3 pages (66%)" in mode.partial
