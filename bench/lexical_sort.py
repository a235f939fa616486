"""The lexical leg's order: FTS5's own ``ORDER BY rank`` against ``ORDER BY rank, rowid`` (SQLite's sorter).

    python bench/lexical_sort.py --pages 10000 [--pages 100000] [--queries 60]

On the synthetic vaults bench/search_latency.py builds (cached under .cache/bench/), times the lexical leg's
leg (``lexical_chunks``, 300 chunks) both ways for the same queries, alternating, and checks that both return
the same chunks in the same order. Prints a table:
p50 / p95 wall ms per order, for every query and for the queries whose words are all common.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import _prepare, _queries
from sentinel.index.db import open_index
from sentinel.search import lexical
from sentinel.search import view as search_view
from tables import print_value_table

ORDERS = {"rank (FTS5 sorts)": "ORDER BY rank LIMIT ?", "rank, rowid (shipped)": lexical.ORDER}


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"{statistics.median(values) * 1000:.1f} / {p95 * 1000:.1f}"


def measure(pages: int, queries: int) -> list[tuple[str, str]]:
    settings = _prepare(pages)
    db = open_index(settings, readonly=True)
    chunks = search_view.chunk_count(db)
    timings: dict[tuple[str, bool], list[float]] = {}
    differ = 0
    for text in _queries(settings, queries):
        terms = lexical.lexical_terms(db, text, chunks)
        if not terms.words:
            continue
        common = len(terms.common) == len(terms.words)
        found: list[list[int]] = []
        for label, order in ORDERS.items():
            lexical.ORDER = order  # the leg as search runs it, each order in turn
            started = time.perf_counter()
            found.append(lexical.lexical_chunks(db, terms, 300))
            elapsed = time.perf_counter() - started
            timings.setdefault((label, False), []).append(elapsed)
            if common:
                timings.setdefault((label, True), []).append(elapsed)
        differ += found[0] != found[1]
    rows = [(f"{pages} pages: chunks / queries", f"{chunks} / {len(timings[(next(iter(ORDERS)), False)])}")]
    for (label, common), values in sorted(timings.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        rows.append((f"  {label}, {'common-word queries' if common else 'every query'} (n={len(values)})", _ms(values)))
    rows.append(("  queries whose 300 chunks or their order differ", str(differ)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, action="append", help="synthetic vault size (repeatable)")
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    rows: list[tuple[str, str]] = [("load average (1 min)", f"{os.getloadavg()[0]:.1f}")]
    for pages in args.pages or [10_000]:
        rows += measure(pages, args.queries)
    print_value_table("lexical leg, ms p50 / p95 (wall)", rows)


if __name__ == "__main__":
    main()
