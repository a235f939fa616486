"""User text never breaks FTS5, and questions still match (real SQLite FTS5, no model)."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sentinel.index import fold
from sentinel.search.fts_query import match_expression, prune_common, query_terms
from tests.support.nasty_text import NASTY


@pytest.fixture
def fts() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='unicode61 remove_diacritics 2')")
    db.execute("CREATE VIRTUAL TABLE t_vocab USING fts5vocab(t, 'row')")
    fold.register(db)
    db.executemany(
        "INSERT INTO t(text) VALUES (sentinel_fold(?))",  # as the index's chunk trigger writes it
        [
            ("The Catalyst license gives early access to insider builds.",),
            ("Ağaç görünümü ve klavye kısayolları",),
            ("Die Größe der Datei ist begrenzt.",),
            ("Obsidian stores notes as plain text files.",),
        ],
    )
    return db


def _match(db: sqlite3.Connection, text: str) -> list[str]:
    expression = match_expression(query_terms(text))
    if not expression:
        return []
    return [r[0] for r in db.execute("SELECT text FROM t WHERE t MATCH ? ORDER BY rank", (expression,))]


@pytest.mark.parametrize("text", NASTY)
def test_fts5_syntax_and_junk_never_raise(fts: sqlite3.Connection, text: str) -> None:
    _match(fts, text)


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_text_is_a_valid_match_expression(text: str) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='unicode61 remove_diacritics 2')")
    db.execute("INSERT INTO t(text) VALUES ('some words here')")
    expression = match_expression(query_terms(text))
    if expression:
        db.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,)).fetchall()


def test_a_natural_language_question_matches(fts: sqlite3.Connection) -> None:
    assert _match(fts, "How much does the catalyst license cost?")[0].startswith("the catalyst license")


def test_diacritics_and_case_fold_like_the_index(fts: sqlite3.Connection) -> None:
    assert _match(fts, "AGAC") == ["agac gorunumu ve klavye kisayollari"]
    assert _match(fts, "größe") == _match(fts, "GRÖSSE") == ["die grosse der datei ist begrenzt."]


def test_common_words_are_dropped_while_rarer_ones_remain() -> None:
    frequencies = {"what": 900, "is": 950, "catalyst": 2}
    kept = prune_common(["what", "is", "catalyst"], frequencies, rows=1000)
    assert kept.words == ["catalyst"] and kept.common == []


def test_a_query_of_only_common_words_keeps_enough_of_them() -> None:
    kept = prune_common(["the", "of", "and"], {"the": 990, "of": 980, "and": 985}, rows=1000)
    assert kept.words == kept.common == ["of", "and"]


def test_common_words_prefer_those_that_can_rank() -> None:
    # "page" is in every row: bm25 gives it no weight, so the rarer common word is matched alone
    kept = prune_common(["page", "ve"], {"page": 1000, "ve": 240}, rows=1000)
    assert kept.words == kept.common == ["ve"]


def test_terms_the_index_lacks_are_kept_but_do_not_count() -> None:
    kept = prune_common(["zzz", "what", "on", "ledger"], {"what": 300, "on": 500, "ledger": 2}, rows=1000)
    assert kept.words == ["zzz", "ledger"]
    only_common = prune_common(["zzz", "what", "on"], {"what": 300, "on": 500}, rows=1000)
    assert only_common.words == ["zzz", "what", "on"] and only_common.common == ["what", "on"]
