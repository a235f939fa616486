"""What a search view costs in memory and time to load, and what that comes to at 1M pages (issue 37).

    python bench/view_memory.py --pages 10000 [--pages 100000] [--runs 1]
    python bench/view_memory.py --index /tmp/m1/index.db   # any index, e.g. bench/clone_vault.py --search's 1M

Loads the view of the cached synthetic index (made by bench/search_latency.py: run that first) cold, in a fresh
process each run (no embedder, no query: only the view), and prints: load time (wall, CPU), peak RSS
(``ru_maxrss``) and RssAnon / RssFile just after the load (the mapped store's resident share apart), and the bytes
the view holds, counted: numpy ``nbytes`` of every array it keeps (each array once, views of another counted
with their base), and a walk of the pages' dicts (each object once, ``sys.getsizeof``). Per chunk and per page
from those; the last column multiplies them out to 1M pages and 9.5M chunk vectors, an **extrapolation**, not a
measurement (the 1M index takes hours to build). The index is opened read-only; the view's store file is made
(and unlinked at once) beside it, as in any search process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tables import print_value_table

CACHE = Path(__file__).resolve().parents[1] / ".cache" / "bench"
PAGES_1M, CHUNKS_1M = 1_000_000, 9_500_000  # the synthetic vault's ~9.5 chunk vectors a page (950,687 at 100k)


def _status_mb() -> dict[str, float]:
    lines = Path("/proc/self/status").read_text().splitlines()
    kib = {k: int(v.split()[0]) for k, _, v in (line.partition(":") for line in lines) if k in ("RssAnon", "RssFile")}
    return {k: v / 1024 for k, v in kib.items()}


def _store_resident_mb() -> float:
    """Resident size of the view's mapped store (its file is unlinked: smaps names it ``(deleted)``)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if re.match(r"[0-9a-f]+-[0-9a-f]+ ", line):  # a mapping's header: address range, ..., path
            inside = ".search-vectors-" in line
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total / 1024


def _array_bytes(arrays: list[np.ndarray]) -> int:
    seen: set[int] = set()
    total = 0
    for array in arrays:
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        if id(base) not in seen:
            seen.add(id(base))
            total += base.nbytes
    return total


def _object_bytes(roots: list[object]) -> int:
    seen: set[int] = set()
    total = 0
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, tuple):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, np.ndarray):
            total += obj.nbytes - sys.getsizeof(obj) if obj.base is None else 0
    return total


def _child(index: Path) -> dict[str, float]:
    from sentinel.index.db import connect
    from sentinel.search import view as search_view

    db = connect(index, readonly=True)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall, cpu = time.perf_counter(), time.process_time()
    view = search_view.current_view(db)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    after = _status_mb()
    store = _store_resident_mb()
    rows = view.rows
    for table in (rows.chunks, rows.summaries):
        if hasattr(table, "_by_page"):  # the by-page sort a query's second stage builds once: held from then on
            table._by_page  # noqa: B018
    arrays: list[np.ndarray] = []
    for holder in (rows.chunks, rows.summaries, view.chunks, view.summary_role_chunks, view.summaries):
        if holder is None:
            continue
        for name, value in list(vars(holder).items()):
            if name == "mapped":  # the store's mapping: file pages, counted apart (RssFile)
                continue
            parts = value if isinstance(value, tuple) else (value,)
            arrays.extend(p for p in parts if isinstance(p, np.ndarray) and p.dtype != np.float64)
    pages = rows.pages
    pages.rowid(""), pages.path(0)  # the lookups' sorts, as the first query makes them
    page_parts = [v for v in vars(pages).values() if isinstance(v, (np.ndarray, bytes, dict, tuple))]
    return {
        "wall": wall,
        "cpu": cpu,
        "rss_before": before,
        "peak": peak,
        "anon": after.get("RssAnon", 0.0),
        "file": after.get("RssFile", 0.0),
        "store": store,
        "chunks": float(view.embedded_chunks),
        "pages": float(len(pages)),
        "array_bytes": float(_array_bytes(arrays)),
        "page_bytes": float(_object_bytes(page_parts)),
    }


def measure(index: Path, runs: int) -> list[tuple[str, str]]:
    if not index.exists():
        raise SystemExit(f"no index at {index}: run bench/search_latency.py first")
    env = dict(os.environ, PYTHONHASHSEED="0")
    results = []
    for _ in range(runs):
        load = Path("/proc/loadavg").read_text().split(" ")[0]
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(index)], env=env, check=True, capture_output=True, text=True
        )
        results.append((load, json.loads(out.stdout.strip().splitlines()[-1])))
    rows: list[tuple[str, str]] = []
    for load, r in results:
        per_chunk, per_page = r["array_bytes"] / r["chunks"], r["page_bytes"] / r["pages"]
        at_1m = (per_chunk * CHUNKS_1M + per_page * PAGES_1M) / 2**20
        rows += [
            ("load average (1 min) at start", load),
            ("pages / embedded chunks", f"{r['pages']:.0f} / {r['chunks']:.0f}"),
            ("cold view load, wall / CPU (s)", f"{r['wall']:.2f} / {r['cpu']:.2f}"),
            ("peak RSS (MB), and before the load", f"{r['peak']:.0f} ({r['rss_before']:.0f})"),
            ("after the load: RssAnon / RssFile (MB), the store's resident part", _after(r)),
            ("the load's transient: peak RSS - RSS after (MB)", f"{r['peak'] - r['anon'] - r['file']:.0f}"),
            ("view's arrays (MB), bytes per chunk vector", f"{r['array_bytes'] / 2**20:.1f}, {per_chunk:.1f}"),
            ("pages (MB), bytes per page", f"{r['page_bytes'] / 2**20:.1f}, {per_page:.1f}"),
            ("extrapolated to 1M pages / 9.5M chunks: arrays + pages (MB)", f"{at_1m:.0f}"),
        ]
    return rows


def _after(r: dict[str, float]) -> str:
    return f"{r['anon']:.0f} / {r['file']:.0f}, store {r['store']:.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, action="append", help="cached synthetic index of this size; repeat")
    parser.add_argument("--runs", type=int, default=1, help="fresh processes per size")
    parser.add_argument("--index", type=Path, action="append", help="an index elsewhere; repeat for several")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child)))
        return 0
    for pages in args.pages or ([] if args.index else [10_000]):
        print_value_table(f"search view of {pages} pages", measure(CACHE / f"synth-{pages}.db", args.runs))
    for index in args.index or []:
        print_value_table(f"search view of {index}", measure(index, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
