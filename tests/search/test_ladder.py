"""The search ladder on real pages with the real model: languages, rungs, fallbacks, paging, no scores."""

from __future__ import annotations

import pytest

from sentinel.embed.http import HttpEmbedder
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import SearchInputError, embed_pending, search
from sentinel.search.results import EXACT, EXCERPT
from tests.support.nasty_text import NASTY
from tests.support.servers import free_port
from tests.support.vault import Indexed, WriteVault

pytestmark = pytest.mark.slow

FILE_RECOVERY = {"tr/Eklentiler/Dosya Kurtarma.md", "en/Plugins/File recovery.md"}


def _paths(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.path for h in result.hits]


def test_turkish_query_finds_the_turkish_page_and_its_english_twin(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    found = search(eval_index.db, eval_index.settings, e5, "Dosya kurtarma anlık görüntüleri kaç gün saklar?", limit=5)
    shown = {h.path: h.copies for h in found.hits}
    # one hit for the two (one page in two languages, tests/search/test_units.py), the twin named on it
    assert any({path, *copies} >= FILE_RECOVERY for path, copies in shown.items()), shown
    assert not found.notes


def test_a_question_answered_only_in_english_finds_the_english_page(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    # The eval slice has no Turkish page about hotkeys: the language centres let meaning cross over.
    found = search(eval_index.db, eval_index.settings, e5, "Bir komuta kendi klavye kısayolumu nasıl atarım?", limit=5)
    assert "en/User interface/Hotkeys.md" in _paths(found), _paths(found)


def test_without_an_embedder_the_answer_is_lexical_and_says_so(eval_index: Indexed) -> None:
    found = search(eval_index.db, eval_index.settings, None, "snapshots file recovery")
    assert "en/Plugins/File recovery.md" in _paths(found)
    assert found.notes and "wording only" in found.notes[0]
    assert found.legs_used == ["lexical"]


def test_an_unreachable_embedder_gives_a_lexical_answer_with_a_note(eval_index: Indexed) -> None:
    dead = HttpEmbedder(f"http://127.0.0.1:{free_port()}", timeout_s=2, batch=8)
    found = search(eval_index.db, eval_index.settings, dead, "snapshots file recovery")
    assert "en/Plugins/File recovery.md" in _paths(found)
    assert any("unavailable" in note and "wording only" in note for note in found.notes)


def test_no_vectors_yet_gives_a_lexical_answer_with_a_note(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings({"notes/Tea.md": "# Tea\n\nGreen tea steeps for two minutes."})
    db = open_index(settings)
    sync(settings, db)
    found = search(db, settings, e5, "how long does green tea steep")
    assert _paths(found) == ["notes/Tea.md"]
    assert any("sentinel embed" in note for note in found.notes)


def test_partly_embedded_index_says_what_is_missing(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings({"notes/Tea.md": "# Tea\n\nGreen tea steeps for two minutes."})
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    (settings.vault / "notes/Coffee.md").write_text("# Coffee\n\nEspresso takes 25 seconds.", encoding="utf-8")
    sync(settings, db)
    found = search(db, settings, e5, "espresso")
    assert "notes/Coffee.md" in _paths(found)
    (note,) = [n for n in found.notes if n.startswith("meaning search is still filling")]
    assert "chunks 1 of 2 pages (50%), summaries 1 of 2 pages (50%); waiting: notes/Coffee.md (" in note


def test_time_budget_overrun_answers_from_wording(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    hurried = eval_index.settings.model_copy(
        update={"search": eval_index.settings.search.model_copy(update={"timeout_s": 1e-6})}
    )
    found = search(eval_index.db, hurried, e5, "snapshots file recovery")
    assert "en/Plugins/File recovery.md" in _paths(found)
    assert any("time budget" in note for note in found.notes)


@pytest.mark.parametrize("query", [q for q in NASTY if q.strip()])
def test_fts5_syntax_in_queries_never_crashes(eval_index: Indexed, e5: OnnxEmbedder, query: str) -> None:
    for rung in ("summary", "body"):
        search(eval_index.db, eval_index.settings, e5, query, rung=rung)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "rung", "cursor"), [("", "summary", 0), ("   ", "body", 0), ("x", "pages", 0), ("x", "body", -1)]
)
def test_bad_requests_say_what_to_send(eval_index: Indexed, query: str, rung: str, cursor: int) -> None:
    with pytest.raises(SearchInputError):
        search(eval_index.db, eval_index.settings, None, query, rung=rung, cursor=cursor)  # type: ignore[arg-type]


def test_exact_title_comes_first_and_is_labelled(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    found = search(eval_index.db, eval_index.settings, e5, "hotkeys")
    assert found.hits[0].path == "en/User interface/Hotkeys.md"
    assert EXACT in found.hits[0].labels and "exact" in found.legs_used


def test_paging_continues_without_repeats(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    first = search(eval_index.db, eval_index.settings, e5, "sync settings", limit=3)
    assert first.next_cursor == 3
    second = search(eval_index.db, eval_index.settings, e5, "sync settings", cursor=3, limit=3)
    assert not set(_paths(first)) & set(_paths(second))
    assert second.cursor == 3


def test_body_rung_gives_verbatim_chunks_with_their_trail(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    found = search(eval_index.db, eval_index.settings, e5, "how long are file recovery snapshots kept", rung="body")
    hit = next(h for h in found.hits if h.path == "en/Plugins/File recovery.md")
    assert hit.rung == "body" and hit.trail.startswith("File recovery")
    chunk = eval_index.db.execute(
        "SELECT text FROM chunks WHERE path = ? AND trail = ?", (hit.path, hit.trail)
    ).fetchall()
    assert hit.text in [row[0] for row in chunk]


def test_summary_lines_come_from_description_or_say_they_are_excerpts(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "notes/Described.md": "---\ndescription: Kettle care in one line.\n---\n# Kettle\n\nDescale it monthly.",
            "notes/Plain.md": "# Kettle notes\n\nMy kettle is **old**. It still boils water fast. A third sentence.",
        }
    )
    db = open_index(settings)
    sync(settings, db)
    by_path = {h.path: h for h in search(db, settings, None, "kettle").hits}
    described, plain = by_path["notes/Described.md"], by_path["notes/Plain.md"]
    assert (described.text, described.summary_source, described.labels) == (
        "Kettle care in one line.",
        "frontmatter",
        (),
    )
    assert plain.summary_source == "lead" and plain.labels == (EXCERPT,)
    assert plain.text == "My kettle is old. …"  # the rung shows the lead's first sentence, and says it is cut


def test_no_score_leaves_the_search(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    found = search(eval_index.db, eval_index.settings, e5, "snapshots file recovery", rung="body").as_dict()

    def fields(value: object) -> list[tuple[str, object]]:
        if isinstance(value, dict):
            return [(k, v) for k, v in value.items()] + [f for v in value.values() for f in fields(v)]
        if isinstance(value, list):
            return [f for v in value for f in fields(v)]
        return []

    for key, value in fields(found):
        assert not any(word in key for word in ("score", "similarity", "distance", "bm25", "weight")), key
        assert not isinstance(value, float), key


def test_rungs_respect_folder_roles(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(
        {
            "notes/Kettle.md": "# Kettle\n\nThe kettle descaling uses vinegar.",
            "sources/Descaling.md": "# Descaling study\n\nDescaling a kettle with citric acid works best.",
            "conversations/2024-01-01.md": "# Chat\n\nWe talked about descaling the kettle.",
        }
    )
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    summary = _paths(search(db, settings, e5, "descaling kettle", limit=10))
    body = _paths(search(db, settings, e5, "descaling kettle", rung="body", limit=10))
    assert summary == ["notes/Kettle.md"]
    assert set(body) == {"notes/Kettle.md", "sources/Descaling.md", "conversations/2024-01-01.md"}


def test_a_named_source_or_transcript_stays_off_the_summary_rung(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "notes/Kettle.md": "# Kettle\n\nDescaling the kettle.",
            "sources/Descaling.md": "# Descaling study\n\nCitric acid descales a kettle.",
            "conversations/Descaling chat.md": "# Chat\n\nWe talked about descaling.",
        }
    )
    db = open_index(settings)
    sync(settings, db)
    for named in ("Descaling", "[[Descaling chat]]", "sources/Descaling.md"):
        summary = search(db, settings, None, named, limit=10)
        assert {h.path for h in summary.hits} <= {"notes/Kettle.md"}, named
        assert any("rung='body' shows it" in note for note in summary.notes), named
    body = search(db, settings, None, "Descaling", rung="body", limit=10)
    assert body.hits[0].path == "sources/Descaling.md" and "exact" in body.hits[0].labels
