"""The lexical leg served from held postings: always FTS5's own answer, before and after the index changes
(real SQLite, real FTS5, a small vault; the "common" threshold set to 0 so every word asked for is held)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import lexical, postings
from sentinel.search.lexical import lexical_chunks, lexical_terms
from sentinel.search.view import chunk_count, index_file
from sentinel.settings import Settings
from tests.support.vault import WriteVault

WORDS = ["amber", "birch", "cedar", "dune", "ember", "fjord", "grove", "heath", "inlet", "juniper"]
LIMIT = 12  # below the matches of most queries: the cut and the ties at it are exercised


def _page(rng: random.Random, parts: int) -> str:
    """Sections of common words at uneven rates and lengths (some over 127 tokens: two-byte varints)."""
    sections = []
    for part in range(parts):
        length = rng.choice([3, 6, 12, 40, 150])
        words = rng.choices(WORDS, weights=[9, 7, 6, 5, 4, 3, 3, 2, 2, 1], k=length)
        sections.append(f"## Part {part}\n\n{' '.join(words)}.\n")
    return "\n".join(sections)


def _vault(vault_settings: WriteVault, pages: int = 30) -> Settings:
    rng = random.Random(7)
    files = {f"notes/N{i:02}.md": _page(rng, rng.randint(1, 4)) for i in range(pages)}
    files["notes/Rare.md"] = "amber zebra.\n"
    return vault_settings(files)


QUERIES = [
    "amber birch",
    "cedar dune ember",
    "fjord grove",
    "heath inlet juniper",
    "birch juniper",
    "grove",
    "ember amber",
    "dune zebra",  # a rare word: FTS5's path
    "juniper nosuchword",  # a word the index lacks: the OR tail on FTS5's path
]


def _fts5_only(db: sqlite3.Connection, terms: lexical.Terms, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    with monkeypatch.context() as patch:
        patch.setattr(postings, "held_for", lambda db, words: None)
        return lexical_chunks(db, terms, LIMIT)


def _compare(db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> int:
    """Every query through the leg against FTS5's path; returns how many queries differ."""
    differ = 0
    for query in QUERIES:
        terms = lexical_terms(db, query, chunk_count(db))
        differ += lexical_chunks(db, terms, LIMIT) != _fts5_only(db, terms, monkeypatch)
    return differ


def _every_list(db: sqlite3.Connection, held: postings.Held) -> int:
    """Every pair of words, AND and OR, at several limits, from ``held`` against FTS5's ranking; returns how many
    lists differ."""
    differ = 0
    for first in WORDS:
        for second in WORDS:
            words = [first] if first == second else [first, second]
            for every in (False, True):
                for limit in (1, 5, LIMIT, 1000):
                    expression = lexical.match_expression(words, every=every)
                    fts5 = [r[0] for r in db.execute(lexical.ranked_query(None)[0], (expression, limit))]
                    differ += held.ranked(words, limit, every=every) != fts5
    return differ


@pytest.fixture
def held_everything(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(postings, "MIN_HELD_ROWS", 0)
    postings.forget()
    yield
    postings.forget()


def _read_all(db: sqlite3.Connection) -> postings.Held:
    for query in QUERIES:
        lexical_chunks(db, lexical_terms(db, query, chunk_count(db)), LIMIT)
    postings.ask(index_file(db), WORDS)
    postings.settle()
    held = postings.held_for(db, [])
    assert held is not None and set(WORDS) <= set(held.terms)
    return held


def _edit(settings: Settings, db: sqlite3.Connection) -> None:
    rng = random.Random(11)
    for i in range(0, 30, 4):  # edited in place
        (settings.vault / f"notes/N{i:02}.md").write_text(_page(rng, rng.randint(1, 4)))
    for i in (3, 9, 21):  # removed
        (settings.vault / f"notes/N{i:02}.md").unlink()
    for i in range(30, 36):  # added, long sections of the rarer words (moves N, avgdl and every idf)
        (settings.vault / f"notes/N{i:02}.md").write_text("## New\n\n" + " ".join(["juniper", "inlet"] * 60) + ".\n")
    sync(settings, db)


def test_held_postings_rank_exactly_as_fts5_before_and_after_writes(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None
) -> None:
    settings = _vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    held = _read_all(db)
    assert _every_list(db, held) == 0
    postings.SERVED.clear()
    assert _compare(db, monkeypatch) == 0
    assert postings.SERVED["memory"] >= 7  # the common-word queries came from memory...
    assert postings.SERVED["fts5"] >= 2  # ...a rare word and a word the index lacks from FTS5

    _edit(settings, db)
    assert _every_list(db, held) > 0  # the edits change rankings: the old copy is wrong now...
    assert postings.held_for(db, []) is None  # ...and is not used
    assert _compare(db, monkeypatch) == 0

    postings.settle()
    fresh = _read_all(db)
    assert fresh.generation > held.generation
    assert _every_list(db, fresh) == 0
    postings.SERVED.clear()
    assert _compare(db, monkeypatch) == 0
    assert postings.SERVED["memory"] >= 7


def test_a_query_after_a_write_takes_fts5s_path_until_the_postings_are_read_again(
    vault_settings: WriteVault, held_everything: None
) -> None:
    settings = _vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    _read_all(db)
    terms = lexical_terms(db, "amber birch", chunk_count(db))
    postings.SERVED.clear()
    lexical_chunks(db, terms, LIMIT)
    assert postings.SERVED == {"memory": 1}

    (settings.vault / "notes/N00.md").write_text("amber birch amber.\n")
    sync(settings, db)
    postings.settle()  # no reader runs until a query asks
    postings.SERVED.clear()
    lexical_chunks(db, terms, LIMIT)
    assert postings.SERVED == {"fts5": 1}
    postings.settle()
    postings.SERVED.clear()
    lexical_chunks(db, terms, LIMIT)
    assert postings.SERVED == {"memory": 1}


def test_words_over_the_budget_or_rare_are_left_to_fts5(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None
) -> None:
    settings = _vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    monkeypatch.setattr(postings, "BUDGET_BYTES", 0)
    for query in QUERIES:
        lexical_chunks(db, lexical_terms(db, query, chunk_count(db)), LIMIT)
    postings.settle()
    held = postings.held_for(db, [])
    assert held is not None and not held.terms and held.passed
    postings.SERVED.clear()
    assert _compare(db, monkeypatch) == 0
    assert postings.SERVED["memory"] == 0


def test_token_counts_are_fts5s_docsize(vault_settings: WriteVault, held_everything: None) -> None:
    settings = _vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    _, _, tokens = postings._sizes(db)
    expected = {}
    for rowid, blob in db.execute("SELECT id, sz FROM chunks_fts_docsize"):
        total = value = 0
        for byte in blob:
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                total, value = total + value, 0
        expected[rowid] = total
    assert max(expected.values()) > 127  # two-byte varints are among them
    assert {i: int(tokens[i]) for i in expected} == expected


def test_a_reader_never_creates_an_index_file_that_is_gone(tmp_path: Path, held_everything: None) -> None:
    gone = tmp_path / "index.db"
    postings.ask(str(gone), ["amber"])
    postings.settle()
    assert not gone.exists()
