"""A page-level first stage for the lexical leg, measured against today's leg (issue 37).

    python bench/lexical_stage.py --pages 10000 [--pages 100000] [--queries 60] [--common 30] [--stage-pages 300 1000]
    python bench/lexical_stage.py --postings --pages 10000 [--pages 100000]

On the synthetic vaults bench/search_latency.py builds (cached under .cache/bench/), builds a page-level FTS5
table in the connection's TEMP schema (one row per page: every chunk's folded text and trail; the index file is
not touched), then for every query runs

- today's leg (``lexical.lexical_chunks``, 300 chunks: bm25 over every chunk that matches), and
- the staged leg: the same match expression ranks pages by bm25 first, keeps the best ``--stage-pages`` pages,
  and ranks only their chunks by the chunk table's own bm25 (the same scores as today for those chunks),

and prints per query mix (ordinary: 2-5 words from random chunks, as bench/search_latency.py; common: 2-3 words
each in more than 8% and at most half of the chunks) p50 / p95 CPU and wall ms, the recall of today's top 10
(mean and min), how often the top chunk is the same, and the overlap of the whole 300; what reading the
matches costs without bm25 (a ``count(*)``: the floor of any stage that reads the doclists); how many of
today's top 10 are among the longest 10% of chunks (what a stage that ranks short chunks first would miss);
and, for the first ``--facet-queries`` of each mix, the leg under a broad facet (role:wiki) with the facet's
chunks given to FTS5 as ``rowid IN`` (before) and as ``+rowid IN`` (shipped), checking both return the same.
Today's leg above is FTS5's path (the held postings switched off).

``--postings`` measures the shipped leg with held postings (``sentinel.search.postings``) instead: FTS5's path,
then the leg's first pass (it asks for the words; a background thread reads them), warm (everything read), right
after a vector write before each query (a ``chunk_vectors`` row stored, untimed: the FTS table untouched, so
the held copy stays current; and how many times the postings were read again meanwhile),
right after a chunk write (a page edit's: each query takes FTS5's path until the thread has read everything
again) and warm again, with CPU as the query's own thread's time (the reader's is not in it), the lists compared with
FTS5's (all 300, in order) for both mixes, how long the reads took and the bytes held.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import _prepare, _queries
from sentinel.index import fold
from sentinel.index.db import open_index
from sentinel.index.facets import Facets
from sentinel.search import lexical, postings
from sentinel.search import view as search_view
from sentinel.search.fts_query import COMMON_SHARE, Terms, match_expression
from tables import print_value_table

LIMIT = 300  # what search asks of the leg (leg_depth * CHUNKS_PER_PAGE)


def build_page_table(db: sqlite3.Connection) -> float:
    """A page-level FTS5 table in TEMP: one row per page (rowid = pages.rowid). Returns seconds taken."""
    started = time.perf_counter()
    db.execute("CREATE VIRTUAL TABLE temp.pages_fts USING fts5(text, tokenize='unicode61 remove_diacritics 2')")
    db.execute(
        "INSERT INTO temp.pages_fts(rowid, text) SELECT p.rowid, group_concat(sentinel_fold(c.text) || ' ' || "
        "sentinel_fold(c.trail), ' ') FROM chunks c JOIN pages p ON p.path = c.path GROUP BY p.rowid"
    )
    return time.perf_counter() - started


def _staged_ranked(db: sqlite3.Connection, expression: str, limit: int, stage_pages: int) -> list[int]:
    pages = [
        r[0]
        for r in db.execute(
            "SELECT rowid FROM temp.pages_fts WHERE pages_fts MATCH ? ORDER BY rank, rowid LIMIT ?",
            (expression, stage_pages),
        )
    ]
    candidates = [
        r[0]
        for r in db.execute(
            "SELECT c.id FROM pages p JOIN chunks c ON c.path = p.path "
            "WHERE p.rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(pages),),
        )
    ]
    # ``+rowid``: a bare ``rowid IN (...)`` is handed to FTS5 as one ``rowid = ?`` query per candidate (3.2 s for
    # 3,288 candidates at 10k pages); the unary plus keeps one pass over the doclist, filtered before bm25.
    rows = db.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?)) "
        f"{lexical.ORDER}",
        (expression, json.dumps(candidates), limit),
    ).fetchall()
    return [int(r[0]) for r in rows]


def staged_chunks(db: sqlite3.Connection, terms: Terms, limit: int, stage_pages: int) -> list[int]:
    """``lexical.lexical_chunks`` with the page-level stage before each bm25 over chunks."""
    if not terms.words:
        return []
    if len(terms.common) < 2:
        return _staged_ranked(db, match_expression(terms.words), limit, stage_pages)
    found = _staged_ranked(db, match_expression(terms.common, every=True), limit, stage_pages)
    if len(found) < limit:
        seen = set(found)
        more = (c for c in _staged_ranked(db, match_expression(terms.words), limit, stage_pages) if c not in seen)
        found += list(more)[: limit - len(found)]
    return found


def _doclist_only(db: sqlite3.Connection, terms: Terms) -> list[int]:
    """What reading the matches costs without ranking them: the floor of any stage that reads the doclists."""
    expression = match_expression(terms.common, every=True) if len(terms.common) > 1 else match_expression(terms.words)
    return [int(db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (expression,)).fetchone()[0])]


def chunk_sizes(db: sqlite3.Connection) -> dict[int, int]:
    """Each chunk's token count as FTS5's bm25 reads it (text and trail, from the docsize varints)."""
    sizes: dict[int, int] = {}
    for rowid, blob in db.execute("SELECT id, sz FROM chunks_fts_docsize"):
        total = value = 0
        for byte in blob:  # SQLite varints: seven bits a byte, the high ones first (none here needs nine bytes)
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                total, value = total + value, 0
        sizes[int(rowid)] = total
    return sizes


def common_queries(db: sqlite3.Connection, chunks: int, count: int) -> list[str]:
    """Queries of 2-3 words that are all common (in more than ``COMMON_SHARE`` and at most half of the
    chunks), deterministic."""
    words = [
        str(r[0])
        for r in db.execute(
            "SELECT term FROM chunks_vocab WHERE doc > ? AND doc <= ? ORDER BY term",
            (int(chunks * COMMON_SHARE), chunks // 2),
        )
    ]
    rng = np.random.default_rng(13)
    return [" ".join(rng.choice(words, size=int(rng.integers(2, 4)), replace=False)) for _ in range(count)]


def _timed(run: Callable[[], list[int]]) -> tuple[list[int], float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    found = run()
    return found, time.process_time() - cpu, time.perf_counter() - wall


def _timed_thread(run: Callable[[], list[int]]) -> tuple[list[int], float, float]:
    """As ``_timed``, with the CPU time of this thread only (not the postings reader's)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    found = run()
    return found, time.thread_time() - cpu, time.perf_counter() - wall


@contextmanager
def fts5_path() -> Iterator[None]:
    """The leg as it was before held postings: every ranking by FTS5."""
    held_for = postings.held_for
    postings.held_for = lambda db, words: None
    try:
        yield
    finally:
        postings.held_for = held_for


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"{statistics.median(values) * 1000:.1f} / {p95 * 1000:.1f}"


def measure(pages: int, queries: int, common: int, stage_sizes: list[int], facet_queries: int) -> list[tuple[str, str]]:
    settings = _prepare(pages)
    db = open_index(settings, readonly=True)
    postings.held_for = lambda db, words: None  # today's leg: FTS5's path
    chunks = search_view.chunk_count(db)
    sizes = chunk_sizes(db)
    long_size = int(np.percentile(list(sizes.values()), 90))
    built = build_page_table(db)
    rows = [(f"{pages} pages: chunks / page table built in", f"{chunks} / {built:.1f} s")]
    mixes = {"ordinary": _queries(settings, queries), "common words only": common_queries(db, chunks, common)}
    for mix, texts in mixes.items():
        cpu: dict[str, list[float]] = {}
        wall: dict[str, list[float]] = {}
        recall: dict[int, list[float]] = {n: [] for n in stage_sizes}
        top1: dict[int, int] = dict.fromkeys(stage_sizes, 0)
        long_top = top_total = 0
        overlap: dict[int, list[float]] = {n: [] for n in stage_sizes}
        for text in texts:
            terms = lexical.lexical_terms(db, text, chunks)
            if not terms.words:
                continue
            today, c, w = _timed(lambda: lexical.lexical_chunks(db, terms, LIMIT))  # noqa: B023
            cpu.setdefault("today", []).append(c)
            wall.setdefault("today", []).append(w)
            _, c, w = _timed(lambda: _doclist_only(db, terms))  # noqa: B023
            cpu.setdefault("doclist read, no bm25 (count of the first query)", []).append(c)
            wall.setdefault("doclist read, no bm25 (count of the first query)", []).append(w)
            long_top += sum(sizes.get(cid, 0) > long_size for cid in today[:10])
            top_total += len(today[:10])
            for n in stage_sizes:
                staged, c, w = _timed(lambda: staged_chunks(db, terms, LIMIT, n))  # noqa: B023
                cpu.setdefault(f"page stage {n}", []).append(c)
                wall.setdefault(f"page stage {n}", []).append(w)
                if today:
                    recall[n].append(len(set(today[:10]) & set(staged[:10])) / len(today[:10]))
                    overlap[n].append(len(set(today) & set(staged)) / len(today))
                    top1[n] += bool(staged) and staged[0] == today[0]
        answered = len(recall[stage_sizes[0]])
        rows.append((f"  {mix}: queries (with a match)", f"{len(cpu['today'])} ({answered})"))
        rows.append(
            (
                f"    today's top 10 longer than {long_size} tokens (the longest 10% of chunks)",
                f"{long_top} of {top_total}",
            )
        )
        for label in cpu:
            rows.append((f"    {label}: CPU ms p50 / p95; wall", f"{_ms(cpu[label])}; {_ms(wall[label])}"))
        for n in stage_sizes:
            r10 = recall[n]
            rows.append(
                (
                    f"    page stage {n}: recall of today's top 10 mean (min); top-1 same; overlap of 300",
                    f"{statistics.mean(r10):.3f} ({min(r10):.2f}); {top1[n]}/{answered}; "
                    f"{statistics.mean(overlap[n]):.3f}",
                )
            )
        if facet_queries:
            rows += facet_rows(db, chunks, mix, texts[:facet_queries])
    return rows


def _pass(
    db: sqlite3.Connection,
    mix: str,
    terms: list[Terms],
    label: str,
    today: list[list[int]] | None,
    before_each: Callable[[], None] | None = None,
) -> tuple[list[list[int]], list[tuple[str, str]]]:
    """One pass of the leg over ``terms``: the lists, and rows of its times (and, given ``today``, how many of
    its lists are the same and which path ranked them); ``before_each`` runs before each query, untimed."""
    found: list[list[int]] = []
    cpu: list[float] = []
    wall: list[float] = []
    postings.SERVED.clear()
    for t in terms:
        if before_each is not None:
            before_each()
        chunk_ids, c, w = _timed_thread(lambda: lexical.lexical_chunks(db, t, LIMIT))  # noqa: B023
        found.append(chunk_ids)
        cpu.append(c)
        wall.append(w)
    rows = [(f"  {mix}, {label}: CPU ms p50 / p95; wall", f"{_ms(cpu)}; {_ms(wall)}")]
    if today is not None:
        same = sum(a == b for a, b in zip(found, today, strict=True))
        served = f"{postings.SERVED['memory']} from memory, {postings.SERVED['fts5']} by FTS5"
        rows.append((f"  {mix}, {label}: lists identical to FTS5's; rankings", f"{same}/{len(terms)}; {served}"))
    return found, rows


@contextmanager
def counted_reads() -> Iterator[list[float]]:
    """The seconds of each read of the held postings by the background reader while inside."""
    read_held = postings.read_held
    reads: list[float] = []

    def timed(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return read_held(*args)
        finally:
            reads.append(time.perf_counter() - started)

    postings.read_held = timed
    try:
        yield reads
    finally:
        postings.read_held = read_held


def _since(started: float) -> str:
    return f"{time.perf_counter() - started:.1f}"


def _vector_write(path: str) -> None:
    """What storing a batch of vectors does to the index: ``chunk_vectors`` written (one row, deleted and stored
    again; ``search_generation`` bumped by its triggers), the FTS table untouched."""
    writer = sqlite3.connect(path)
    with writer:
        row = writer.execute("SELECT * FROM chunk_vectors ORDER BY id LIMIT 1").fetchone()
        writer.execute("DELETE FROM chunk_vectors WHERE id = ?", (row[0],))
        writer.execute(f"INSERT INTO chunk_vectors VALUES ({', '.join('?' * len(row))})", row)
    writer.close()


def _chunk_write(path: str) -> None:
    """What a page edit does to the FTS table: a chunk deleted and written again through its triggers."""
    writer = sqlite3.connect(path)
    fold.register(writer)
    with writer:
        row = writer.execute("SELECT * FROM chunks ORDER BY id LIMIT 1").fetchone()
        writer.execute("DELETE FROM chunks WHERE id = ?", (row[0],))
        writer.execute(f"INSERT INTO chunks VALUES ({', '.join('?' * len(row))})", row)
    writer.close()


def postings_rows(pages: int, queries: int, common: int) -> list[tuple[str, str]]:
    settings = _prepare(pages)
    db = open_index(settings, readonly=True)
    chunks = search_view.chunk_count(db)
    mixes = {"common words only": common_queries(db, chunks, common), "ordinary": _queries(settings, queries)}
    rows = [(f"{pages} pages: chunks", str(chunks))]
    for mix, texts in mixes.items():
        terms = [t for t in (lexical.lexical_terms(db, text, chunks) for text in texts) if t.words]
        with fts5_path():
            today, timed = _pass(db, mix, terms, "FTS5's path (before)", None)
        rows += timed
        started = time.perf_counter()
        rows += _pass(db, mix, terms, "first pass (asks; postings read meanwhile)", today)[1]
        postings.settle()
        rows.append((f"  {mix}: postings read in (s, from the first pass)", f"{time.perf_counter() - started:.1f}"))
        rows += _pass(db, mix, terms, "warm", today)[1]
        path = search_view.index_file(db)
        label = "a vector write before each query (as while a vault embeds)"
        with counted_reads() as reads:
            rows += _pass(db, mix, terms, label, today, lambda: _vector_write(path))[1]  # noqa: B023
            postings.settle()
        rows.append((f"  {mix}, {label}: postings read again", str(len(reads))))
        _chunk_write(search_view.index_file(db))
        started = time.perf_counter()
        rows += _pass(db, mix, terms, "right after a chunk write (read again meanwhile)", today)[1]
        postings.settle()
        rows.append((f"  {mix}: read again in (s, from the chunk write)", _since(started)))
        rows += _pass(db, mix, terms, "warm again", today)[1]
        held = postings.held_for(db, [])
        words = len(held.terms) if held is not None else 0
        rows.append((f"  {mix}: words held; MB held", f"{words}; {postings.held_bytes() / 1e6:.0f}"))
    return rows


FACET_FILTERS = {"rowid IN (before)": "rowid IN", "+rowid IN (shipped)": "+rowid IN"}


def facet_rows(db: sqlite3.Connection, chunks: int, mix: str, texts: list[str]) -> list[tuple[str, str]]:
    """The leg with a broad facet (role:wiki) both ways: the same chunks, and what each costs."""
    facets = Facets(roles=["wiki"])
    cpu: dict[str, list[float]] = {}
    wall: dict[str, list[float]] = {}
    differ = 0
    for text in texts:
        terms = lexical.lexical_terms(db, text, chunks)
        if not terms.words:
            continue
        found = []
        for label, sql in FACET_FILTERS.items():
            lexical.FACET_FILTER = sql
            chunk_ids, c, w = _timed(lambda: lexical.lexical_chunks(db, terms, LIMIT, facets))  # noqa: B023
            cpu.setdefault(label, []).append(c)
            wall.setdefault(label, []).append(w)
            found.append(chunk_ids)
        differ += found[0] != found[1]
    lexical.FACET_FILTER = FACET_FILTERS["+rowid IN (shipped)"]
    rows = [
        (
            f"    role:wiki, {label}: CPU ms p50 / p95; wall (n={len(cpu[label])})",
            f"{_ms(cpu[label])}; {_ms(wall[label])}",
        )
        for label in cpu
    ]
    return [*rows, ("    role:wiki: queries whose chunks or order differ", str(differ))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, action="append", help="synthetic vault size (repeatable)")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--common", type=int, default=30)
    parser.add_argument("--stage-pages", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--postings", action="store_true", help="measure the shipped leg with held postings")
    parser.add_argument("--facet-queries", type=int, default=5, help="queries per mix timed with a facet both ways")
    args = parser.parse_args()
    rows: list[tuple[str, str]] = [("load average (1 min)", f"{os.getloadavg()[0]:.1f}")]
    for pages in args.pages or [10_000]:
        if args.postings:
            rows += postings_rows(pages, args.queries, args.common)
        else:
            rows += measure(pages, args.queries, args.common, args.stage_pages, args.facet_queries)
    rows.append(("load average (1 min), after", f"{os.getloadavg()[0]:.1f}"))
    print_value_table("lexical leg: today against a page-level first stage", rows)


if __name__ == "__main__":
    main()
