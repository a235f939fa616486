"""The lexical leg served from held postings: always FTS5's own answer, before and after the index changes
(real SQLite, real FTS5, a small vault; the "common" threshold set to 0 so every word asked for is held)."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index import fold
from sentinel.index.db import open_index
from sentinel.index.migrations import transaction
from sentinel.index.sync import sync
from sentinel.search import doclists, embed_pending, lexical, postings
from sentinel.search.lexical import lexical_chunks, lexical_terms
from sentinel.search.view import chunk_count, generation, index_file
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
    # 250-word windows keep a 150-word section one unit, so some units pass 127 tokens
    return vault_settings(files).model_copy(update={"chunk_words": 250})


def _synced(vault_settings: WriteVault) -> tuple[Settings, sqlite3.Connection]:
    """The test vault written and indexed: its settings and an open index."""
    settings = _vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    return settings, db


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


def _every_list(db: sqlite3.Connection, held: postings.Held | postings.Ranking) -> int:
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
    settings, db = _synced(vault_settings)
    held = _read_all(db)
    assert _every_list(db, held) == 0
    postings.SERVED.clear()
    assert _compare(db, monkeypatch) == 0
    assert postings.SERVED["memory"] >= 9  # every query came from memory (a word the index lacks matches nothing)

    _edit(settings, db)
    assert _every_list(db, held) > 0  # the edits change rankings: the old copy is wrong now...
    assert postings.held_for(db, []) is None  # ...and is not used
    assert _compare(db, monkeypatch) == 0

    postings.settle()
    fresh = _read_all(db)
    assert fresh.state != held.state
    assert _every_list(db, fresh) == 0
    postings.SERVED.clear()
    assert _compare(db, monkeypatch) == 0
    assert postings.SERVED["memory"] >= 9


@pytest.mark.parametrize("block", [1 << 18, 3], ids=["whole-words", "blocks-of-3-pairs"])
@pytest.mark.parametrize("pick", [1 << 18, 1, 7], ids=["every-chunk-at-once", "a-chunk-at-a-time", "chunks-by-7"])
@pytest.mark.parametrize("share", [0.0, float("inf")], ids=["a-slot-each-chunk", "a-slot-each-match"])
def test_both_ways_of_scoring_rank_exactly_as_fts5(
    vault_settings: WriteVault,
    monkeypatch: pytest.MonkeyPatch,
    held_everything: None,
    share: float,
    block: int,
    pick: int,
) -> None:
    _, db = _synced(vault_settings)
    held = _read_all(db)
    monkeypatch.setattr(postings, "SPARSE_SHARE", share)
    monkeypatch.setattr(postings, "SCORE_BLOCK", block)  # a word's pairs scored a few at a time: the same ranks
    monkeypatch.setattr(postings, "PICK_BLOCK", pick)  # and the best looked for a few chunks at a time
    assert _every_list(db, held) == 0


def test_a_common_words_pairs_are_scored_in_bounded_blocks() -> None:
    """Scoring a word of 800k pairs over 1M chunks holds the per-chunk score and count and about a block of
    temporaries, not several float64 arrays of every pair besides (at 1M pages 58 MB each for a word in 7.3M
    chunks), nor the matches' arrays while the best are looked for. Measured: every pair at once 55.6 MB; pairs in
    blocks 36.7 MB; the best looked for in blocks too, with a one-byte count, 21.6 MB."""
    chunks, pairs = 1_000_000, 800_000
    tokens = np.full(chunks, 20, dtype=np.int32)
    ids = np.arange(pairs, dtype=np.int32)
    counts = np.ones(pairs, dtype=np.uint8)
    held = postings.Held((), 0, chunks, 20.0, tokens, {"w": (ids, counts)}, frozenset())
    tracemalloc.start()
    try:
        best = held.ranked(["w"], 10, every=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert best == [int(i) for i in ids[:10]]  # equal scores: ties by chunk id
    per_chunk = 8 + 1  # the score and the count of each chunk
    block = 8 * 8 * postings.SCORE_BLOCK  # a block's temporaries, where the matches' ~4 arrays took 8 bytes a pair each
    assert peak < chunks * per_chunk + block, peak


def test_a_query_after_a_write_takes_fts5s_path_until_the_postings_are_read_again(
    vault_settings: WriteVault, held_everything: None
) -> None:
    settings, db = _synced(vault_settings)
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
    _, db = _synced(vault_settings)
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
    _, db = _synced(vault_settings)
    _, _, tokens = doclists.token_counts(db)
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
    # read a few rows at a time (1M pages: all at once peaked at 3.3 GB), the same counts, N and average
    rows, average, whole = doclists.token_counts(db)
    assert rows == len(expected) > 7
    assert average == sum(expected.values()) / rows
    for batch in (1, 3, 7):
        few_rows, few_average, few = doclists.token_counts(db, batch)
        assert (few_rows, few_average, few.dtype, few.tolist()) == (rows, average, whole.dtype, whole.tolist())


def test_a_reader_never_creates_an_index_file_that_is_gone(tmp_path: Path, held_everything: None) -> None:
    gone = tmp_path / "index.db"
    postings.ask(str(gone), ["amber"])
    postings.settle()
    assert not gone.exists()


def _from_memory(db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many of the queries were ranked from the held postings (each ranked as FTS5 ranks it)."""
    postings.SERVED.clear()
    assert _compare(db, monkeypatch) == 0
    return postings.SERVED["memory"]


SERVED_FROM_MEMORY = 9  # the rankings of the queries: one each, and "amber birch"'s AND and OR


def test_writes_that_leave_the_fts_table_alone_keep_the_postings_current(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None, e5: OnnxEmbedder
) -> None:
    _, db = _synced(vault_settings)
    held = _read_all(db)
    before = generation(db)
    embed_pending(db, e5)  # every chunk's vector and summary passage stored, batch by batch
    with transaction(db):  # the maintenance pass stores a summary
        db.execute(
            "INSERT INTO analysis (path, hash, status, summary, analysed_at) "
            "SELECT path, hash, 'ok', 'A page of trees and shores.', 0 FROM pages WHERE path = 'notes/N01.md'"
        )
    assert generation(db) > before  # the views reload...
    assert postings.held_for(db, []) is held  # ...the postings serve on, as they were read
    assert _from_memory(db, monkeypatch) == SERVED_FROM_MEMORY
    assert _every_list(db, held) == 0


def _added_page(settings: Settings, db: sqlite3.Connection) -> None:
    (settings.vault / "notes/N40.md").write_text("## Added\n\n" + " ".join(["grove", "amber"] * 30) + ".\n")
    sync(settings, db)


def _removed_page(settings: Settings, db: sqlite3.Connection) -> None:
    (settings.vault / "notes/N05.md").unlink()
    sync(settings, db)


def _edited_page(settings: Settings, db: sqlite3.Connection) -> None:
    (settings.vault / "notes/N06.md").write_text("## Edited\n\nbirch birch cedar heath.\n")
    sync(settings, db)


def _fts_command(command: str, *rank: int) -> Callable[[Settings, sqlite3.Connection], None]:
    def run(settings: Settings, db: sqlite3.Connection) -> None:
        columns = "chunks_fts, rank" if rank else "chunks_fts"
        with transaction(db):
            db.execute(f"INSERT INTO chunks_fts({columns}) VALUES (?{', ?' * len(rank)})", (command, *rank))

    return run


def _refolded(settings: Settings, db: sqlite3.Connection) -> None:
    with transaction(db):
        fold.rebuild_fts(db)


@pytest.mark.parametrize(
    "write",
    [
        _edited_page,
        _removed_page,
        _added_page,
        _fts_command("rebuild"),
        _fts_command("optimize"),
        _fts_command("merge", -16),  # negative: merge whatever segments there are
        _refolded,
    ],
    ids=["edit", "removal", "addition", "rebuild", "optimize", "merge", "refold"],
)
def test_every_write_to_the_fts_table_makes_the_held_copy_stale(
    vault_settings: WriteVault,
    monkeypatch: pytest.MonkeyPatch,
    held_everything: None,
    write: Callable[[Settings, sqlite3.Connection], None],
) -> None:
    settings, db = _synced(vault_settings)
    _edited_page(settings, db)  # two segments at least: 'rebuild' and 'optimize' have something to rewrite
    held = _read_all(db)
    write(settings, db)
    with monkeypatch.context() as patch:  # no reader meanwhile: every query finds the held copy stale
        patch.setattr(postings, "ask", lambda path, words: None)
        assert postings.held_for(db, []) is None
        assert _from_memory(db, monkeypatch) == 0
    postings.settle()
    fresh = _read_all(db)
    assert fresh is not held
    assert _every_list(db, fresh) == 0
    assert _from_memory(db, monkeypatch) == SERVED_FROM_MEMORY


def test_a_refill_that_repeats_the_structure_is_still_seen(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None
) -> None:
    """'delete-all' starts FTS5's structure over: two refills in a row give the same structure record, and with
    the same row and token totals the same averages; the config cookie ``fold.rebuild_fts`` bumps tells them
    apart."""
    settings, db = _synced(vault_settings)
    _refolded(settings, db)
    held = _read_all(db)
    with transaction(db):  # each chunk's words swapped for others, the token counts kept: the same averages
        db.execute("UPDATE chunks SET text = replace(text, 'amber', 'zebra')")
        fold.rebuild_fts(db)
    assert _every_list(db, held) > 0
    assert postings.held_for(db, []) is None


def _frequencies(db: sqlite3.Connection) -> dict[str, int]:
    """Each word's rows, counted by FTS5 itself (the vocab table read directly, nothing remembered)."""
    return {str(term): int(rows) for term, rows in db.execute("SELECT term, doc FROM chunks_vocab")}


def _rare_read_on_the_fly(db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threshold set between the words' row counts: the rarer half is read on the fly, the rest held."""
    rows = _frequencies(db)
    counts = sorted(rows[w] for w in WORDS)
    monkeypatch.setattr(postings, "MIN_HELD_ROWS", counts[len(counts) // 2])
    rare = [w for w in WORDS if rows[w] <= postings.MIN_HELD_ROWS]
    assert 0 < len(rare) < len(WORDS)
    return rare


def _every_list_of(ranking: postings.Ranking) -> int:
    """As ``_every_list``, through a query's ``Ranking`` (held words and words read on the fly together)."""
    return _every_list(ranking.db, ranking)


def test_rare_words_read_on_the_fly_rank_exactly_as_fts5(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None
) -> None:
    settings, db = _synced(vault_settings)
    rare = _rare_read_on_the_fly(db, monkeypatch)
    held = _read_all_asked(db)
    assert not set(rare) & set(held.terms)  # the rare words are not held...
    ranking = postings.Ranking(db, held, _frequencies(db))
    postings.SERVED.clear()
    assert _every_list_of(ranking) == 0  # ...yet every list with them is FTS5's, chunks and order
    assert set(ranking.read) == set(rare) and postings.SERVED["read"] > 0
    assert _from_memory(db, monkeypatch) == SERVED_FROM_MEMORY  # the leg: FTS5's lists, none by FTS5's bm25

    _edit(settings, db)
    postings.settle()
    fresh = _read_all_asked(db)
    assert _every_list_of(postings.Ranking(db, fresh, _frequencies(db))) == 0
    assert _from_memory(db, monkeypatch) == SERVED_FROM_MEMORY


def _read_all_asked(db: sqlite3.Connection) -> postings.Held:
    """Every word asked for and read (those over the threshold held), as ``_read_all`` without its check."""
    postings.ask(index_file(db), WORDS)
    postings.settle()
    held = postings.held_for(db, [])
    assert held is not None
    return held


def test_a_doclist_read_after_a_write_is_not_used(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None
) -> None:
    """A write between the held copy's state check and a rare word's read: the ranking gives up (FTS5's path)
    rather than mix the new doclist with the old sizes."""
    settings, db = _synced(vault_settings)
    rare = _rare_read_on_the_fly(db, monkeypatch)
    ranking = postings.Ranking(db, _read_all_asked(db), _frequencies(db))
    (settings.vault / "notes/N07.md").write_text("## Edited\n\n" + " ".join(rare * 20) + ".\n")
    sync(settings, db)
    assert all(ranking.ranked([word], LIMIT, every=False) is None for word in rare)
    with monkeypatch.context() as patch:  # no reader meanwhile: the leg finds the copy stale, FTS5 ranks
        patch.setattr(postings, "ask", lambda path, words: None)
        assert _from_memory(db, monkeypatch) == 0


def test_a_word_the_index_lacks_is_ranked_from_memory_only_when_fts5_matches_nothing_to_it(
    vault_settings: WriteVault, held_everything: None
) -> None:
    _, db = _synced(vault_settings)
    held = _read_all(db)
    ranking = postings.Ranking(db, held, {**_frequencies(db), "nosuchword": 0})
    for every in (False, True):
        expression = lexical.match_expression(["juniper", "nosuchword"], every=every)
        fts5 = [r[0] for r in db.execute(lexical.ranked_query(None)[0], (expression, LIMIT))]
        assert ranking.ranked(["juniper", "nosuchword"], LIMIT, every=every) == fts5
    # A word counted as no token that FTS5 still matches (as it would a phrase of several): left to FTS5.
    unheld = dataclasses.replace(held, terms={})
    assert postings.Ranking(db, unheld, {"amber": 0}).ranked(["amber"], LIMIT, every=False) is None


def test_remembered_document_frequencies_follow_every_write(vault_settings: WriteVault, held_everything: None) -> None:
    settings, db = _synced(vault_settings)
    words = [*WORDS, "zebra", "nosuchword"]
    assert postings.frequencies(db, words) == {w: _frequencies(db).get(w, 0) for w in words}
    _edit(settings, db)  # every word's rows move
    assert postings.frequencies(db, words) == {w: _frequencies(db).get(w, 0) for w in words}
    with transaction(db):
        db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")  # the same rows, a new state
    assert postings.frequencies(db, words) == {w: _frequencies(db).get(w, 0) for w in words}


def test_a_word_asked_for_in_the_same_state_is_the_only_one_read(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, held_everything: None
) -> None:
    _, db = _synced(vault_settings)
    before = _read_all(db)
    counted: list[list[str]] = []
    count = postings.document_frequencies
    monkeypatch.setattr(
        postings,
        "document_frequencies",
        lambda db, table, words: counted.append(list(words)) or count(db, table, words),
    )
    postings.ask(index_file(db), ["part"])  # a word of the headings no query asked for
    postings.settle()
    assert counted == [["part"]]  # the words held already are not counted again...
    held = postings.held_for(db, [])
    assert held is not None and held.state == before.state
    assert set(held.terms) == {*before.terms, "part"}  # ...and are kept as they were
    assert all(held.terms[w] is before.terms[w] for w in before.terms)


def test_a_words_postings_are_read_in_bounded_batches_with_the_same_result(vault_settings: WriteVault) -> None:
    """``doclists.read`` counts a word's instances a batch at a time, a chunk's run carried across batches: the same
    chunks, counts and types as every instance read and sorted at once, for any batch size, and a common word's
    read holds about a batch, not every instance (at 1M pages "de"'s 29M instances peaked at ~0.5 GB)."""
    settings = _vault(vault_settings)
    sections = [f"## Long {i}\n\n{' '.join(['amber'] * 140)} birch.\n" for i in range(500)]
    (settings.vault / "notes/Long.md").write_text("\n".join(sections))
    db = open_index(settings)
    sync(settings, db)
    db.execute(doclists.INSTANCES_TABLE)
    for word in [*WORDS, "part", "zebra", "nosuchword"]:
        whole = doclists.read_sorted(db, word)
        for batch in (1, 2, 3, 7, 1000, doclists.POSTINGS_BATCH):
            ids, counts = doclists.read(db, word, batch)
            assert (ids.dtype, counts.dtype) == (whole[0].dtype, whole[1].dtype), (word, batch)
            assert (ids.tolist(), counts.tolist()) == (whole[0].tolist(), whole[1].tolist()), (word, batch)
    instances = db.execute(f"SELECT COUNT(*) FROM {doclists.INSTANCES} WHERE term = 'amber'").fetchone()[0]
    assert instances > 70_000
    tracemalloc.start()
    try:
        doclists.read(db, "amber", 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * instances  # all at once: 8 bytes an instance, and its sorted copy


def test_postings_out_of_chunk_order_are_sorted(vault_settings: WriteVault) -> None:
    """Instances that do not come in chunk order (FTS5 gives them in order; a table standing in for its
    instance view here) are read again whole and sorted: the same postings as in order."""
    _, db = _synced(vault_settings)
    db.execute("CREATE TEMP TABLE chunks_instances (term TEXT, doc INTEGER)")
    docs = [5, 5, 9, 2, 2, 2, 7, 5, 300]
    db.executemany("INSERT INTO temp.chunks_instances VALUES ('amber', ?)", [(d,) for d in docs])
    for batch in (1, 2, 4, 100):
        ids, counts = doclists.read(db, "amber", batch)
        assert (ids.tolist(), counts.tolist(), ids.dtype, counts.dtype) == (
            [2, 5, 7, 9, 300],
            [3, 3, 1, 1, 1],
            np.uint16,
            np.uint8,
        )
