"""Rank agreement of the semantic legs' first stage (sign-bit candidates) with an exhaustive full-width scan.

    python bench/first_stage.py --index .cache/bench/synth-100000.db --synthetic   # after search_latency.py
    python bench/first_stage.py --index /tmp/eval/index.db --queries ../shared/eval/queries.tsv
    python bench/first_stage.py --vectors 950000    # bench/vector_scale.py's synthetic store, no vault

For each vector set a search uses (body chunks, summary-rung chunks, page summaries) and each query, the top
10 of ``vectors.nearest`` (``CANDIDATES`` Hamming candidates, rescored from int8) is compared with the top 10
of every stored int8 vector scored by the same centred cosine, with no first stage: recall of the exhaustive
top 10, top-1 agreement, and the wall time of each (p50). Prints a table.

Queries: ``--queries`` embeds the ``query`` column of a TSV with the real model (an index of real vectors,
such as the eval vault's). ``--synthetic`` is for the synthetic vaults, whose vectors belong to no model:
each query is a stored vector moved by the same noise the generator puts between pages of one topic, so it
lands among the vault's clusters the way a real query does (a real query's vector would be a random point to
synthetic vectors). ``--vectors N`` builds bench/vector_scale.py's store of N clustered vectors (950k: the
chunks of a 100k-page vault) in a scratch file and takes its queries, drawn from the same clusters.
"""

from __future__ import annotations

import argparse
import csv
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

from sentinel.search.vectors import CANDIDATES, VectorSet, nearest
from sentinel.search.view import current_view

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import print_value_table

ROOT = Path(__file__).resolve().parents[1]
TOP = 10
BATCH = 50_000


class Exhaustive:
    """Every int8 vector of one set in memory, scored at full width (the ranking with no first stage)."""

    def __init__(self, db: sqlite3.Connection, vectors: VectorSet) -> None:
        ids, blobs, scales = [], [], []
        for rowid, vec, scale in db.execute(f"SELECT id, vec, scale FROM {vectors.table} ORDER BY id"):
            ids.append(rowid)
            blobs.append(vec)
            scales.append(scale)
        position = np.searchsorted(np.asarray(ids, dtype=np.int64), vectors.vector_ids)
        stored = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(ids), vectors.dims)
        self.q = stored[position]
        self.scale = np.asarray(scales, dtype=np.float32)[position]
        self.vectors = vectors
        centres = vectors.centres.vectors[vectors.centre_of]
        self.norm = np.empty(len(vectors), dtype=np.float32)
        for start in range(0, len(vectors), BATCH):
            part = slice(start, start + BATCH)
            restored = self.q[part].astype(np.float32) * self.scale[part, None] - centres[part]
            self.norm[part] = np.maximum(np.linalg.norm(restored, axis=1), 1e-12)

    def float_row(self, row: int) -> np.ndarray:
        return self.q[row].astype(np.float32) * self.scale[row]

    def top(self, query: np.ndarray, k: int) -> list[int]:
        centred = self.vectors.centres.centred(query[None, :])[0]
        offset = self.vectors.centres.vectors @ centred
        scores = np.empty(len(self.vectors), dtype=np.float32)
        for start in range(0, len(self.vectors), BATCH):
            part = slice(start, start + BATCH)
            dots = (self.q[part].astype(np.float32) @ centred) * self.scale[part]
            scores[part] = (dots - offset[self.vectors.centre_of[part]]) / self.norm[part]
        rows = np.argsort(-scores, kind="stable")[:k]
        return [int(self.vectors.items[r]) for r in rows]


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f}"


def _synthetic_queries(exhaustive: Exhaustive, count: int) -> np.ndarray:
    rng = np.random.default_rng(17)
    rows = rng.choice(len(exhaustive.vectors), size=count, replace=False)
    base = np.stack([exhaustive.float_row(int(r)) for r in rows])
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    moved = base + 0.35 * rng.standard_normal(base.shape) / np.sqrt(base.shape[1])
    return (moved / np.linalg.norm(moved, axis=1, keepdims=True)).astype(np.float32)


def _real_queries(path: Path, model: Path, count: int) -> np.ndarray:
    from sentinel.embed.onnx import OnnxEmbedder

    with path.open(encoding="utf-8") as handle:
        texts = [row["query"] for row in csv.DictReader(handle, delimiter="\t") if row.get("query")]
    embedder = OnnxEmbedder(model, threads=int(os.environ.get("EMBED_THREADS", "1")))
    return embedder.embed(texts[:count], "query").vectors


def measure(
    db: sqlite3.Connection,
    name: str,
    vectors: VectorSet,
    queries: np.ndarray | None,
    count: int,
    candidates: int = CANDIDATES,
) -> list[tuple[str, str]]:
    started = time.perf_counter()
    exhaustive = Exhaustive(db, vectors)
    loaded = time.perf_counter() - started
    if queries is None:
        queries = _synthetic_queries(exhaustive, count)
    recalls, firsts, staged_s, full_s = [], [], [], []
    vector_of = dict(zip(vectors.items.tolist(), vectors.vector_ids.tolist(), strict=True))
    nearest(db, vectors, queries[0], TOP, candidates)  # warm the page cache
    for query in queries:
        wall = time.perf_counter()
        staged = nearest(db, vectors, query, TOP, candidates)
        staged_s.append(time.perf_counter() - wall)
        wall = time.perf_counter()
        truth = exhaustive.top(query, TOP)
        full_s.append(time.perf_counter() - wall)
        # by stored vector: two chunks of the same text share one vector and tie
        got = {vector_of[i] for i in staged}
        recalls.append(len(got & {vector_of[i] for i in truth}) / len(truth))
        firsts.append(vector_of[staged[0]] == vector_of[truth[0]])
    return [
        (f"{name}: vectors / queries", f"{len(vectors)} / {len(queries)}"),
        (f"{name}: recall of the exhaustive top {TOP}", f"{np.mean(recalls):.3f} (min {min(recalls):.1f})"),
        (f"{name}: top-1 agreement", f"{np.mean(firsts):.3f}"),
        (f"{name}: first stage p50 (ms)", _ms(staged_s)),
        (
            f"{name}: exhaustive p50 (ms, int8 in memory, {loaded:.0f}s to load)",
            f"{statistics.median(full_s) * 1000:.0f}",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path)
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--vectors", type=int, help="a synthetic store of this many vectors (bench/vector_scale.py)")
    how.add_argument("--queries", type=Path, help="TSV with a query column, embedded with the real model")
    how.add_argument("--synthetic", action="store_true", help="queries near stored vectors (synthetic vaults)")
    parser.add_argument("--count", type=int, default=60, help="queries at most")
    parser.add_argument("--candidates", type=int, default=CANDIDATES, help="Hamming candidates rescored")
    parser.add_argument("--only", choices=("body", "summary-rung", "summaries"), help="one vector set")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    args = parser.parse_args(argv)
    if args.vectors:
        return _scratch(args.vectors, args.count, args.candidates)
    db = sqlite3.connect(f"file:{args.index}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row  # as ``open_index`` sets it: the view reads columns by name
    db.execute("PRAGMA mmap_size = 268435456")
    view = current_view(db)
    queries = None if args.synthetic else _real_queries(args.queries, args.embed_model, args.count)
    rows: list[tuple[str, str]] = [("load average (1 min)", Path("/proc/loadavg").read_text().split(" ")[0])]
    for name, vectors in (
        ("body", view.chunks),
        ("summary-rung", view.summary_role_chunks),
        ("summaries", view.summaries),
    ):
        if vectors is not None and args.only in (None, name):
            rows += measure(db, name, vectors, queries, args.count, args.candidates)
    print_value_table(f"first stage ({args.candidates} candidates) against exhaustive ({args.index})", rows)
    return 0


def _scratch(n: int, count: int, candidates: int) -> int:
    from vector_scale import build

    with tempfile.TemporaryDirectory(prefix="first-stage-") as tmp:
        started = time.perf_counter()
        db, vectors, _, queries = build(Path(tmp) / "vectors.db", n)
        rows = [
            ("load average (1 min)", Path("/proc/loadavg").read_text().split(" ")[0]),
            ("stored in (s)", f"{time.perf_counter() - started:.0f}"),
        ]
        rows += measure(db, "synthetic chunks", vectors, queries[:count], count, candidates)
        rows.append(("peak RSS (MB)", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}"))
        db.close()
    print_value_table(f"first stage ({candidates} candidates) against exhaustive ({n} synthetic vectors)", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
