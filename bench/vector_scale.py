"""The semantic leg at scale: candidates by sign-bit Hamming distance, exact rescoring from SQLite.

    python bench/vector_scale.py [--sizes 100000 1000000] [--queries 50]

Stores N synthetic clustered 384-d vectors (several "languages", many topics) through the real storage
code (int8 + language centre + sign bits) in a temporary SQLite file, loads them the way a search does,
and measures ``vectors.nearest`` per query (wall and CPU, p50/p95) and its recall@10 against an exact
float scan. Prints a table.
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # BLAS threads fight ONNX Runtime's (ENVIRONMENT.md)

import numpy as np

from sentinel.search.vectors import Centres, VectorSet, nearest, quantise, sign_bits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import print_value_table

DIMS = 384
LANGUAGES = 4
TOPICS = 2000


def _vectors(rng: np.random.Generator, n: int, axes: np.ndarray) -> np.ndarray:
    language = rng.integers(0, LANGUAGES, n)
    topic = rng.integers(LANGUAGES, len(axes), n)
    v = 0.6 * axes[language] + 0.5 * axes[topic] + 0.35 * rng.standard_normal((n, DIMS)) / np.sqrt(DIMS)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def build(path: Path, n: int) -> tuple[sqlite3.Connection, VectorSet, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    axes = rng.standard_normal((LANGUAGES + TOPICS, DIMS))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    centres = Centres((0.6 * axes[:LANGUAGES]).astype(np.float32), tuple(f"l{i}" for i in range(LANGUAGES)))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA mmap_size = 268435456")
    db.execute("CREATE TABLE chunk_vectors (id INTEGER PRIMARY KEY, vec BLOB NOT NULL, scale REAL NOT NULL)")
    all_which, all_bits, exact = [], [], np.empty((n, DIMS), dtype=np.float32)
    db.execute("BEGIN")
    for start in range(0, n, 50_000):
        vectors = _vectors(rng, min(50_000, n - start), axes)
        q, scales = quantise(vectors)
        which = centres.nearest(vectors)
        all_which.append(which)
        all_bits.append(sign_bits(centres.centred(vectors, which)))
        exact[start : start + len(vectors)] = centres.centred(vectors, which)
        db.executemany(
            "INSERT INTO chunk_vectors (id, vec, scale) VALUES (?, ?, ?)",
            [(start + i + 1, q[i].tobytes(), float(scales[i])) for i in range(len(vectors))],
        )
    db.execute("COMMIT")
    ids = np.arange(1, n + 1, dtype=np.int64)
    bits = np.ascontiguousarray(np.concatenate(all_bits).T)
    vector_set = VectorSet("chunk_vectors", ids, ids, np.concatenate(all_which), bits, centres, DIMS)
    queries = _vectors(rng, 50, axes)
    return db, vector_set, exact, queries


def _ms(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values) * 1000:.1f} / {values[round(0.95 * (len(values) - 1))] * 1000:.1f}"


def measure(n: int, count: int) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        db, vector_set, exact, queries = build(Path(tmp) / "vectors.db", n)
        built = time.perf_counter() - started
        walls, cpus, recalls = [], [], []
        nearest(db, vector_set, queries[0], 10)  # warm the page cache
        for query in queries[:count]:
            wall, cpu = time.perf_counter(), time.process_time()
            got = nearest(db, vector_set, query, 10)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            centred = vector_set.centres.centred(query[None, :])[0]
            truth = set((np.argsort(-(exact @ centred))[:10] + 1).tolist())
            recalls.append(len(truth & set(got)) / 10)
        return [
            ("vectors", f"{n}"),
            ("stored and loaded in (s)", f"{built:.0f}"),
            ("sign bits held in memory (MB)", f"{vector_set.bits.nbytes / 1e6:.0f}"),
            ("nearest p50 / p95 wall (ms)", _ms(walls)),
            ("nearest p50 / p95 CPU (ms)", _ms(cpus)),
            ("recall@10 vs exact centred cosine", f"{np.mean(recalls):.3f}"),
            ("peak RSS (MB)", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}"),
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args(argv)
    for n in args.sizes:
        print_value_table(f"{n} vectors", measure(n, args.queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
