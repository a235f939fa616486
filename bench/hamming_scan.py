"""The semantic first stage's Hamming scan alone: the shipped scan against the ones it replaced.

    python bench/hamming_scan.py [--rows 95000 950000 9500000] [--queries 30]

Random sign bits (6 words = 384 dims) for 10k, 100k and 1M synthetic pages' worth of chunk vectors; each query
is scanned by ``vectors.hamming_candidates`` (1,500 candidates, as ``vectors.CANDIDATES``), by the whole-row
version of stop 42 (kept here as the reference) and by stop 43's blocked one, in turn; the candidates must be
identical. Prints wall and CPU p50 / p95 per scan.
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


def blocked_43(bits: np.ndarray, query_bits: np.ndarray, count: int, block_rows: int = 1 << 14) -> np.ndarray:
    """Stop 43's scan: blocks of 16,384 rows, each word's counts added in uint16, every distance counted."""
    words, n = bits.shape
    distance = np.empty(n, dtype=np.uint16)
    counts = np.zeros(words * 64 + 1, dtype=np.int64)
    xored = np.empty(min(n, block_rows), dtype=np.uint64)
    ones = np.empty(len(xored), dtype=np.uint8)
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        block, xor, one = distance[start:stop], xored[: stop - start], ones[: stop - start]
        block.fill(0)
        for word, query_word in zip(bits[:, start:stop], query_bits, strict=True):
            np.bitwise_xor(word, query_word, out=xor)
            np.bitwise_count(xor, out=one)
            block += one
        counts += np.bincount(block, minlength=len(counts))
    cut = int(np.searchsorted(np.cumsum(counts), count))
    inside = np.flatnonzero(distance < cut)
    at_cut = np.flatnonzero(distance == cut)[: max(0, count - len(inside))]
    return np.sort(np.concatenate([inside, at_cut]))


def _ms(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values) * 1000:.2f} / {values[round(0.95 * (len(values) - 1))] * 1000:.2f}"


def measure(rows: int, queries: int) -> list[tuple[str, str]]:
    rng = np.random.default_rng(rows)
    bits = rng.integers(0, 2**63, size=(WORDS, rows), dtype=np.uint64)
    scans = {"whole": whole_rows, "blocked 43": blocked_43, "shipped": hamming_candidates}
    times: dict[str, list[float]] = {f"{name}{kind}": [] for name in scans for kind in ("", " wall")}
    for _ in range(queries):
        query = rng.integers(0, 2**63, size=WORDS, dtype=np.uint64)
        found = {}
        for name, scan in scans.items():
            started, wall = time.process_time(), time.perf_counter()
            found[name] = scan(bits, query, CANDIDATES)
            times[name].append(time.process_time() - started)
            times[name + " wall"].append(time.perf_counter() - wall)
        if not all(np.array_equal(found["whole"], rows) for rows in found.values()):
            raise SystemExit(f"the scans disagree at {rows} rows")
    labels = {
        "whole": "whole-row passes (stop 42)",
        "blocked 43": "blocked, uint16 sums, every distance counted (stop 43)",
        "shipped": "shipped: byte sums, distances within the bound counted",
    }
    out = [("rows (sign-bit vectors) / MB scanned", f"{rows} / {bits.nbytes / 1e6:.0f}")]
    for name, label in labels.items():
        out.append((f"{label} p50 / p95 wall (ms)", _ms(times[name + " wall"])))
        out.append((f"{label} p50 / p95 CPU (ms)", _ms(times[name])))
    out.append(("candidates identical", f"{queries} of {queries}"))
    return out


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
