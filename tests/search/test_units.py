"""Issue 32 on real pages with the real model: an entry of a long conversation is found as that entry, a
page's date travels with its passages to what the model reads, and translations are one hit."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from bench import convo_set
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending, search
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.search import search as search_tool
from tests.support.vault import Indexed, WriteVault

pytestmark = pytest.mark.slow

CHATTER = [
    "haha yes",
    "how was your weekend?",
    "the kitchen is a mess again, the tap and the sink and the cupboards",
    "we should get dinner soon",
    "work has been mad this week",
    "did the plumber ever call you back about the kitchen?",
    "I'm so tired, slept badly",
    "the boiler is making that noise again",
    "the kitchen tap is still dripping, I put a bowl under it",
    "say hi to Ben for me",
    "Thursday works for me",
    "my phone is dying, one sec",
]
ANSWER = "- **Ana:** the plumber said the tap only needs a new ceramic cartridge, about thirty pounds"


def _conversation() -> str:
    turns = [f"- **{'Sam' if i % 2 else 'Ana'}:** {CHATTER[i % len(CHATTER)]}" for i in range(60)]
    turns.insert(37, ANSWER)
    return "---\ndate: 2024-03-02\n---\n# Chat with Ana\n\n" + "\n".join(turns) + "\n"


def _indexed(vault_settings: WriteVault, e5: OnnxEmbedder, files: dict[str, str]) -> Indexed:
    settings = vault_settings(files)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    return Indexed(settings, db)


KEPT_CHATS = 8  # chat pages kept of the set's 24 (sorted by name: 2024-01-06 Ana is among them)


@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory, e5: OnnxEmbedder) -> Iterator[Indexed]:
    """The conversation set's vault (bench/convo_set.py): 24 chat pages of short turns, 7 prose notes."""
    root = tmp_path_factory.mktemp("chats")
    convo_set.write(root)
    for page in sorted((root / "vault" / "Chats").glob("*.md"))[KEPT_CHATS:]:
        page.unlink()  # a part of the set is enough (and embeds in a fraction of the time)
    settings = Settings(vault=root / "vault", index_path=root / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    yield Indexed(settings, db)
    db.close()


def test_an_entry_in_a_long_conversation_outranks_a_page_that_only_shares_words(
    chats: Indexed, e5: OnnxEmbedder
) -> None:
    # "Notes/Kitchen and house jobs.md" shares the words (kitchen tap, plumber, quoted) and says nothing of
    # what the tap needs; the answer is one turn among 40 of a chat page.
    found = search(chats.db, chats.settings, e5, "the plumber's verdict on the kitchen tap", rung="body", limit=3)
    paths = [h.path for h in found.hits]
    assert paths[0] == "Chats/2024-01-06 Ana.md", paths
    assert found.hits[0].text.startswith("- **Ana:** the plumber said the kitchen tap just needs a new ceramic")
    assert found.hits[0].date == "2024-01-06"  # from the title


def test_the_date_reaches_the_passage_the_model_reads(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    done = _indexed(
        vault_settings,
        e5,
        {
            "Chats/Chat with Ana.md": _conversation(),  # frontmatter date
            "Journal/2024-05-17 Standup.md": "# Standup\n\nLena moved the retry queue release to Friday.\n",
            "Notes/Retry queue.md": "# Retry queue\n\nThe retry queue resends failed payment webhooks.\n",
        },
    )
    old = 1_600_000_000  # 2020-09-13 UTC: the file's date, for a page that names none
    os.utime(done.settings.vault / "Notes/Retry queue.md", (old, old))
    sync(done.settings, done.db)
    found = search(done.db, done.settings, e5, "when was the retry queue release moved", rung="body")
    dates = {h.path: h.date for h in found.hits}
    assert dates["Journal/2024-05-17 Standup.md"] == "2024-05-17"  # from the title
    assert dates["Notes/Retry queue.md"] == "2020-09-13"  # from the file
    chat = search(done.db, done.settings, e5, "ceramic cartridge for the tap", rung="body")
    assert chat.hits[0].date == "2024-03-02"  # from the frontmatter
    ctx = ToolContext(settings=done.settings, embedder=e5)
    try:
        shown = search_tool(ctx, "when was the retry queue release moved", rung="body")
        summary = search_tool(ctx, "when was the retry queue release moved")
    finally:
        ctx.close()
    assert "Journal/2024-05-17 Standup.md (2024-05-17) › 2024-05-17 Standup" in shown.body
    assert "Notes/Retry queue.md (2020-09-13) › Retry queue" in shown.body
    assert "(2024-05-17)" in summary.body and "(2020-09-13)" in summary.body


def test_translations_collapse_to_one_hit_in_the_querys_language(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    turkish, english = "tr/Eklentiler/Dosya Kurtarma.md", "en/Plugins/File recovery.md"
    found = search(eval_index.db, eval_index.settings, e5, "Dosya kurtarma anlık görüntüleri kaç gün saklar?", limit=5)
    paths = [h.path for h in found.hits]
    assert paths[0] == turkish and english not in paths, paths
    assert found.hits[0].also_in == ("en",) and found.hits[0].copies == (english,)
    shown = search(eval_index.db, eval_index.settings, e5, "how many days does file recovery keep snapshots", limit=5)
    assert shown.hits[0].path == english and turkish not in [h.path for h in shown.hits]
    assert shown.hits[0].also_in == ("tr",)
    every = search(
        eval_index.db, eval_index.settings, e5, "Dosya kurtarma anlık görüntüleri kaç gün saklar?", all_languages=True
    )
    assert {turkish, english} <= {h.path for h in every.hits}  # the copies stay reachable on request
