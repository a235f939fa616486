"""What one search asked twice is found once, and the answer is the one asking again gave.

A query's language by its words (the lexical leg, then the meaning leg), the units of the top pages (the second
stage, then the translation families), a connection's index file (a dozen times a query), the summary lines of
body hits that show a chunk, the frontmatter of pages without a translation property: each was read or computed
again per query. Each shortcut is checked against the work it saves and, where it can be turned off, the results
against a search without it. The time saved: docs/retrieval.md, "Stop 55, h55e".
"""

from __future__ import annotations

import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index import language_id
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import centres, rerank, search
from sentinel.search.families import KEYS_SHARE, TRANSLATION_KEYS, families
from sentinel.search.view import index_file
from tests.search.test_first_stage import QUERIES
from tests.support.vault import Indexed, WriteVault

SUMMARY_STATEMENT = "SELECT p.rowid AS page_id"  # ``summaries.SUMMARY_ROWS``


def _statements(indexed: Indexed, call: object) -> list[str]:
    seen: list[str] = []
    indexed.db.set_trace_callback(seen.append)
    try:
        call()  # type: ignore[operator]
    finally:
        indexed.db.set_trace_callback(None)
    return seen


def test_a_connection_reads_its_index_file_once(eval_index: Indexed) -> None:
    first = _statements(eval_index, lambda: index_file(eval_index.db))
    again = _statements(eval_index, lambda: index_file(eval_index.db))
    assert index_file(eval_index.db) == str(eval_index.settings.index_path.resolve())
    assert not any("database_list" in s for s in again), (first, again)


@pytest.mark.slow
def test_a_query_is_classified_by_its_words_once(
    eval_index: Indexed, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    among = language_id.among
    asked: list[str] = []

    class Counted:
        def __init__(self, identifier: object) -> None:
            self.identifier = identifier

        def classify(self, text: str) -> object:
            asked.append(text)
            return self.identifier.classify(text)  # type: ignore[attr-defined]

    monkeypatch.setattr(language_id, "among", lambda languages: Counted(among(languages)))
    centres._classified.cache_clear()
    search(eval_index.db, eval_index.settings, e5, "how do I restore a deleted note", rung="body")
    assert asked == ["how do I restore a deleted note"]


@pytest.mark.slow
def test_the_families_reuse_the_second_stages_units_and_rank_as_without(
    eval_index: Indexed, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = eval_index.settings
    staged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": True})})
    calls = [(s, q, rung) for s in (settings, staged) for q in QUERIES for rung in ("summary", "body")]

    def run() -> list[object]:
        return [search(eval_index.db, s, e5, q, rung=rung, limit=30) for s, q, rung in calls]  # type: ignore[arg-type]

    read = rerank._read_units
    reads: list[int] = []

    def counted(*args: object) -> object:
        reads.append(1)
        return read(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(rerank, "_read_units", counted)
    monkeypatch.setattr(rerank, "_last", None)  # what an earlier search left
    search(eval_index.db, staged, e5, QUERIES[0], rung="body")
    assert len(reads) == 1  # the second stage's read; the families found it (two before)
    now = run()
    monkeypatch.setattr(rerank, "_unit_rows", read)  # every caller reads its own again
    assert run() == now
    assert any(result.hits for result in now)  # type: ignore[attr-defined]


@pytest.mark.slow
def test_body_hits_that_show_a_chunk_read_no_summary_line(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    settings = eval_index.settings
    body = _statements(eval_index, lambda: search(eval_index.db, settings, e5, "restore a deleted file", rung="body"))
    summary = _statements(eval_index, lambda: search(eval_index.db, settings, e5, "restore a deleted file"))
    assert not any(SUMMARY_STATEMENT in s for s in body)
    assert any(SUMMARY_STATEMENT in s for s in summary)


def test_every_translation_key_holds_the_word_the_filter_looks_for() -> None:
    assert all(KEYS_SHARE in key for key in TRANSLATION_KEYS)


def test_pages_named_in_a_translation_property_are_one_family(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "Guide.md": "---\ntranslations: ['[[Anleitung]]']\n---\n# Guide\n\nOpen the settings.\n",
            "Anleitung.md": "# Anleitung\n\nÖffne die Einstellungen.\n",
            "Leitfaden.md": "---\ntranslation_of: '[[Guide]]'\n---\n# Leitfaden\n\nÖffne die Einstellungen.\n",
            "About.md": "---\ntags: [translation]\n---\n# About translation\n\nNot a translation of [[Guide]].\n",
        }
    )
    db = open_index(settings)
    sync(settings, db)
    grouped = families(db, ["Guide.md", "Anleitung.md", "About.md", "Leitfaden.md"])
    assert sorted(sorted(f.members) for f in grouped) == [["About.md"], ["Anleitung.md", "Guide.md", "Leitfaden.md"]]
    db.close()
