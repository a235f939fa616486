"""Search latency of two versions of the code in lock step, for a machine other work shares.

    python bench/search_lockstep.py --base-src /path/to/other/src [--pages 100000] [--queries 40] [--rounds 2]
        [--cache .cache/bench]

Starts one process per version (``--base-src`` and this checkout's src/), each with the cached synthetic index of
bench/search_latency.py (run that first: it builds it), the view loaded, the lexical postings warmed and the
same queries; then sends them each query in turn, the order of the two alternating per query, so both see the
machine as loaded as it is at that moment (on a two-core VM shared with other sessions, whole runs one after
another differed by 2x in wall time with the same code). Prints wall and CPU p50 / p95 per rung for both, the
load average at start and end, and how many searches carried a note (a time budget run out shows there).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"summary": "summary rung", "body": "body rung", "staged": "body rung, second stage on"}


def _worker(cache: Path, pages: int, queries: int) -> None:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.path.insert(0, str(ROOT / "bench"))
    from search_latency import _queries
    from sentinel.embed.onnx import OnnxEmbedder
    from sentinel.index.db import open_index
    from sentinel.search import postings, search
    from sentinel.search import view as search_view
    from sentinel.search.lexical import lexical_chunks, lexical_terms
    from sentinel.settings import Settings

    settings = Settings(vault=cache / f"synth-{pages}", index_path=cache / f"synth-{pages}.db", _env_file=None)
    staged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": True})})
    db = open_index(settings, readonly=True)
    embedder = OnnxEmbedder(
        ROOT / "models" / "multilingual-e5-small", threads=int(os.environ.get("EMBED_THREADS", "1"))
    )
    texts = _queries(settings, queries)
    search_view.current_view(db)
    search(db, settings, embedder, texts[0])
    search(db, staged, embedder, texts[0])
    for text in texts:
        lexical_chunks(db, lexical_terms(db, text, search_view.chunk_count(db)), 300)
    postings.settle()
    print(json.dumps({"ready": len(texts)}), flush=True)
    for line in sys.stdin:
        index, config = line.split()
        wall, cpu = time.perf_counter(), time.process_time()
        found = search(
            db,
            staged if config == "staged" else settings,
            embedder,
            texts[int(index)],
            rung="summary" if config == "summary" else "body",
        )
        took = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "notes": len(found.notes)}
        print(json.dumps(took), flush=True)


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"{statistics.median(values) * 1000:.1f} / {p95 * 1000:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", type=Path, required=True, help="the src/ folder of the version to compare with")
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "bench")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.cache, args.pages, args.queries)
        return 0
    command = [sys.executable, __file__, "--worker", "--base-src", str(args.base_src), "--cache", str(args.cache)]
    command += ["--pages", str(args.pages), "--queries", str(args.queries)]
    workers = {
        name: subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(src))
        )
        for name, src in (("base", args.base_src.resolve()), ("this", ROOT / "src"))
    }
    for worker in workers.values():
        json.loads(worker.stdout.readline())  # type: ignore[union-attr]
    load_start = Path("/proc/loadavg").read_text().split()[:3]
    took: dict[tuple[str, str], list[tuple[float, float]]] = {}
    notes = 0
    for round_ in range(args.rounds):
        for index in range(args.queries):
            for config in CONFIGS:
                order = ["base", "this"] if (index + round_) % 2 == 0 else ["this", "base"]
                for name in order:
                    worker = workers[name]
                    worker.stdin.write(f"{index} {config}\n")  # type: ignore[union-attr]
                    worker.stdin.flush()  # type: ignore[union-attr]
                    answer = json.loads(worker.stdout.readline())  # type: ignore[union-attr]
                    notes += answer["notes"]
                    took.setdefault((name, config), []).append((answer["wall"], answer["cpu"]))
    load_end = Path("/proc/loadavg").read_text().split()[:3]
    for worker in workers.values():
        worker.stdin.close()  # type: ignore[union-attr]
        worker.wait()
    print(
        f"{args.pages} pages, {args.queries} queries x {args.rounds} rounds in lock step; load average at start "
        f"{' '.join(load_start)}, at end {' '.join(load_end)}; searches with a note: {notes}"
    )
    print("| ms p50 / p95 | base wall | this wall | base CPU | this CPU |\n|---|---|---|---|---|")
    for config, label in CONFIGS.items():
        base, this = took[("base", config)], took[("this", config)]
        cells = [
            _ms([t[0] for t in base]),
            _ms([t[0] for t in this]),
            _ms([t[1] for t in base]),
            _ms([t[1] for t in this]),
        ]
        print(f"| {label} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
