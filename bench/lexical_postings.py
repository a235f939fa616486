"""The lexical leg's held postings against FTS5's own ranking on a real vault (the eval vault by default).

    python bench/lexical_postings.py [--vault PATH] [--common 60]
    python bench/lexical_postings.py --pages 10000 [--pages 100000] [--queries 60] [--common 30]

Indexes the vault into a temporary folder (no embedding), holds every word of every query (the "common"
threshold set to 0, so rare words are held too), then counts the lists that are the same, all chunks in order:
``Held.ranked`` against FTS5's ``MATCH ... ORDER BY rank, rowid LIMIT`` for each query's held words, AND and OR,
at limits 10 and 300; and the leg (``lexical_chunks``, 300) with held postings against FTS5's path. Queries: the
public, held-out and vault-question sets, and ``--common`` queries of 1-3 words each in more than 8% and at most
half of the chunks. Nothing is chosen here: it checks exactness, and times nothing.

``--pages N`` profiles the leg instead, read-only on the cached synthetic index bench/search_latency.py builds,
over its own queries (ordinary) and bench/lexical_stage.py's common-word queries: each query's two pieces,
``lexical_terms`` (the words' document frequencies) and ``lexical_chunks`` (the rankings), CPU (this thread's)
and wall p50 / p95, in three passes: cold (nothing held or remembered; the reader reads meanwhile), warm (what
the cold pass asked for held) and FTS5's path (held postings switched off); each pass's lists against the cold
FTS5 lists of the same queries, and which path ranked them; then what the reader costs after each write to the
FTS table: every asked word read again, timed.
"""

from __future__ import annotations

import argparse
import csv
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import lexical, postings
from sentinel.search.fts_query import COMMON_SHARE, query_terms
from sentinel.search.view import chunk_count, index_file
from sentinel.settings import Settings
from tests.support.eval_data import eval_data_file, eval_vault_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lexical_stage import common_queries
from search_latency import CACHE, _queries
from tables import print_value_table

HERE = Path(__file__).resolve().parent
QUERY_SETS = [eval_data_file("queries.tsv"), HERE / "heldout_queries.tsv", HERE / "vault_questions.tsv"]


def _eval_queries(common: list[str], count: int) -> list[str]:
    found = []
    for path in QUERY_SETS:
        with path.open(encoding="utf-8") as handle:
            found += [row["query"] for row in csv.DictReader(handle, delimiter="\t")]
    rng = np.random.default_rng(5)
    return found + [" ".join(rng.choice(common, size=int(rng.integers(1, 4)), replace=False)) for _ in range(count)]


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"{statistics.median(values) * 1000:.1f} / {p95 * 1000:.1f}"


def _leg_pass(db: sqlite3.Connection, texts: list[str], chunks: int) -> tuple[list[list[int]], dict[str, list[float]]]:
    """The leg over ``texts``: its lists, and the CPU (this thread's) and wall seconds of each piece."""
    times: dict[str, list[float]] = {}
    found = []
    postings.SERVED.clear()
    for text in texts:
        wall, cpu = time.perf_counter(), time.thread_time()
        terms = lexical.lexical_terms(db, text, chunks)
        middle, middle_cpu = time.perf_counter(), time.thread_time()
        found.append(lexical.lexical_chunks(db, terms, 300))
        end, end_cpu = time.perf_counter(), time.thread_time()
        for piece, (w, c) in {
            "terms (document frequencies)": (middle - wall, middle_cpu - cpu),
            "rankings": (end - middle, end_cpu - middle_cpu),
            "leg": (end - wall, end_cpu - cpu),
        }.items():
            times.setdefault(f"{piece} CPU", []).append(c)
            times.setdefault(f"{piece} wall", []).append(w)
    return found, times


def profile(pages: int, queries: int, common: int) -> list[tuple[str, str]]:
    """The leg's pieces at ``pages`` synthetic pages, cold, warm and on FTS5's path (see the docstring)."""
    settings = Settings(vault=CACHE / f"synth-{pages}", index_path=CACHE / f"synth-{pages}.db", _env_file=None)
    db = open_index(settings, readonly=True)
    chunks = chunk_count(db)
    mixes = {"ordinary": _queries(settings, queries), "common words only": common_queries(db, chunks, common)}
    rows = [(f"{pages} pages: chunks; load average (1 min)", f"{chunks}; {os.getloadavg()[0]:.1f}")]
    postings.forget()
    held_for = postings.held_for
    reference: dict[str, list[list[int]]] = {}
    for name in ("cold", "warm", "FTS5's path"):
        if name == "warm":
            postings.settle()
        if name == "FTS5's path":
            postings.held_for = lambda db, words: None
        for mix, texts in mixes.items():
            found, times = _leg_pass(db, texts, chunks)
            served = dict(postings.SERVED)
            if name == "cold":
                postings.held_for = lambda db, words: None  # the reference: FTS5's lists in the same state
                reference[mix] = _leg_pass(db, texts, chunks)[0]
                postings.held_for = held_for
            same = sum(a == b for a, b in zip(found, reference[mix], strict=True))
            for piece in ("terms (document frequencies)", "rankings", "leg"):
                value = f"{_ms(times[f'{piece} CPU'])}; {_ms(times[f'{piece} wall'])}"
                rows.append((f"  {mix}, {name}: {piece}, CPU; wall ms p50 / p95", value))
            paths = f"{served.get('memory', 0)} memory ({served.get('read', 0)} with doclists read), "
            paths += f"{served.get('fts5', 0)} FTS5"
            rows.append((f"  {mix}, {name}: lists identical to FTS5's; rankings", f"{same}/{len(texts)}; {paths}"))
    postings.held_for = held_for
    held = postings.held_for(db, [])
    assert held is not None
    asked = [*held.terms, *held.passed]
    wall, cpu = time.perf_counter(), time.thread_time()
    postings.read_held(index_file(db), asked, None)  # what each write to the FTS table costs the reader
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    rows += [
        (f"{pages} pages: words asked; held; MB held", f"{len(asked)}; {len(held.terms)}; {held.nbytes() / 1e6:.0f}"),
        (f"{pages} pages: all of it read again (after a write), CPU; wall s", f"{cpu:.1f}; {wall:.1f}"),
        (f"{pages} pages: load average (1 min), after", f"{os.getloadavg()[0]:.1f}"),
    ]
    db.close()
    return rows


def _leg_rows(db: sqlite3.Connection, queries: list[str], chunks: int, label: str) -> list[str]:
    """The leg's lists (300) against FTS5's path for every query, and how they were ranked."""
    same = served = read = 0
    held_for = postings.held_for
    for query in queries:
        terms = lexical.lexical_terms(db, query, chunks)
        postings.SERVED.clear()
        with_held = lexical.lexical_chunks(db, terms, 300)
        served += postings.SERVED["memory"] > 0
        read += postings.SERVED["read"] > 0
        postings.held_for = lambda db, words: None
        same += with_held == lexical.lexical_chunks(db, terms, 300)
        postings.held_for = held_for
    return [
        f"{label}: the leg's lists identical to FTS5's path: {same}/{len(queries)} "
        f"({served} served from memory, {read} of them with doclists read on the fly)"
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    parser.add_argument("--common", type=int, default=60)
    parser.add_argument("--pages", type=int, action="append", help="profile the leg on a synthetic vault")
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    if args.pages:
        for pages in args.pages:
            print_value_table("the lexical leg, piece by piece", profile(pages, args.queries, args.common))
        return 0
    shipped = postings.MIN_HELD_ROWS
    postings.MIN_HELD_ROWS = 0
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(vault=args.vault, index_path=Path(folder) / "index.db", _env_file=None)
        db = open_index(settings)
        sync(settings, db)
        chunks = chunk_count(db)
        common = [
            str(r[0])
            for r in db.execute(
                "SELECT term FROM chunks_vocab WHERE doc > ? AND doc <= ? ORDER BY term",
                (int(chunks * COMMON_SHARE), chunks // 2),
            )
        ]
        queries = _eval_queries(common, args.common)
        postings.ask(index_file(db), sorted({w for q in queries for w in query_terms(q)}))
        postings.settle()
        held = postings.held_for(db, [])
        assert held is not None
        same = lists = 0
        for query in queries:
            words = [w for w in query_terms(query) if w in held.terms]
            for every in (False, True):
                for limit in (10, 300):
                    expression = lexical.match_expression(words, every=every)
                    fts5 = [r[0] for r in db.execute(lexical.ranked_query(None)[0], (expression, limit))]
                    lists += bool(words)
                    same += bool(words) and held.ranked(words, limit, every=every) == fts5
        rows = _leg_rows(db, queries, chunks, "every word held")
        postings.MIN_HELD_ROWS = shipped  # the shipped threshold: most of these words read on the fly
        postings.forget()
        postings.ask(index_file(db), sorted({w for q in queries for w in query_terms(q)}))
        postings.settle()
        rows += _leg_rows(db, queries, chunks, f"words in at most {shipped} chunks read on the fly")
        print(f"{args.vault.name}: {chunks} chunks, {len(held.terms)} words held, {len(queries)} queries")
        print(f"Held.ranked lists identical to FTS5's: {same}/{lists}")
        for row in rows:
            print(row)
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
