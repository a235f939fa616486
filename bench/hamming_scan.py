"""The semantic first stage's Hamming scan alone: the shipped blocked scan against the old one.

    python bench/hamming_scan.py [--rows 95000 950000 9500000] [--queries 30]

Random sign bits (6 words = 384 dims) for 10k, 100k and 1M synthetic pages' worth of chunk vectors; each query
is scanned by ``vectors.hamming_candidates`` (1,500 candidates, as ``vectors.CANDIDATES``) and by the whole-row
version it replaced (kept here as the reference), alternating; the candidates must be identical. Prints wall
and CPU p50 / p95 per scan for both.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from sentinel.search.vectors import CANDIDATES, hamming_candidates

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import print_value_table

WORDS = 6


def whole_rows(bits: np.ndarray, query_bits: np.ndarray, count: int) -> np.ndarray:
    """The scan before blocking: each word xor-ed, counted and added over every row, then one histogram."""
    n = bits.shape[1]
    distance = np.zeros(n, dtype=np.uint16)
    xored = np.empty(n, dtype=np.uint64)
    ones = np.empty(n, dtype=np.uint8)
    for word, query_word in zip(bits, query_bits, strict=True):
        np.bitwise_xor(word, query_word, out=xored)
        np.bitwise_count(xored, out=ones)
        distance += ones
    cut = int(np.searchsorted(np.cumsum(np.bincount(distance)), count))
    inside = np.flatnonzero(distance < cut)
    at_cut = np.flatnonzero(distance == cut)[: max(0, count - len(inside))]
    return np.sort(np.concatenate([inside, at_cut]))


def _ms(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values) * 1000:.2f} / {values[round(0.95 * (len(values) - 1))] * 1000:.2f}"


def measure(rows: int, queries: int) -> list[tuple[str, str]]:
    rng = np.random.default_rng(rows)
    bits = rng.integers(0, 2**63, size=(WORDS, rows), dtype=np.uint64)
    times: dict[str, list[float]] = {"blocked": [], "whole": [], "blocked wall": [], "whole wall": []}
    for _ in range(queries):
        query = rng.integers(0, 2**63, size=WORDS, dtype=np.uint64)
        found = {}
        for name, scan in (("whole", whole_rows), ("blocked", hamming_candidates)):
            started, wall = time.process_time(), time.perf_counter()
            found[name] = scan(bits, query, CANDIDATES)
            times[name].append(time.process_time() - started)
            times[name + " wall"].append(time.perf_counter() - wall)
        if not np.array_equal(found["whole"], found["blocked"]):
            raise SystemExit(f"the two scans disagree at {rows} rows")
    return [
        ("rows (sign-bit vectors) / MB scanned", f"{rows} / {bits.nbytes / 1e6:.0f}"),
        ("whole-row passes p50 / p95 wall (ms)", _ms(times["whole wall"])),
        ("whole-row passes p50 / p95 CPU (ms)", _ms(times["whole"])),
        (
            "blocked (shipped) p50 / p95 wall (ms)",
            _ms(times["blocked wall"]),
        ),
        ("blocked (shipped) p50 / p95 CPU (ms)", _ms(times["blocked"])),
        ("candidates identical", f"{queries} of {queries}"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[95_000, 950_000, 9_500_000])
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args(argv)
    for rows in args.rows:
        print_value_table(f"Hamming scan, {rows} rows", measure(rows, args.queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
