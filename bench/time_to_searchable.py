"""Real chunks for the embedding benches, and a vault's time to searchable (indexed, then every chunk embedded).

Summaries are embedded first (one vector per summary-rung page), so a vault is searchable by meaning at page
level well before its chunks are in: ``pages_s`` is that moment, measured (in sample mode every summary is
still embedded and timed; only the chunks are sampled).

Used by ``bench/embed_throughput.py``: ``vault_chunks`` indexes a vault into a scratch index and returns the
passages ``sentinel embed`` would send (``chunk_passage``: trail, then text), so chunks/s is measured on what
is really embedded. ``time_to_searchable`` indexes a vault and embeds its chunks in process; with
``sample`` it embeds only that many (spread over the vault) and extrapolates the rest from their rate, and
says so in the row.

Run as a script, it measures the embedding run split across Celery workers (``POST /v1/embed``'s run, driven in
this process through the API's own ``EmbedRuns``, real Redis on localhost database 13 under a prefix of its own):

    python bench/time_to_searchable.py --pages 1000 --workers 1 2 [--in-process]
    python bench/time_to_searchable.py --pages 10000 --workers 1 2 --until pages [--chunk-window 180]

Each worker is its own process pinned to one core (``taskset``) with one ONNX thread, standing in for one
machine; ``--in-process`` adds ``sentinel embed``'s run on one thread as the baseline. Each row starts from the
same indexed copy of a synthetic vault (bench/synth_vault.py) with no vector, and reports the time until every
page has its page-level vector (searchable by meaning per page) and until every chunk is in.

``--until pages`` (for big vaults, whose chunks take hours) ends a row ``--chunk-window`` seconds after every
page-level vector is in: the chunks are not measured to the end; the row gives how many were stored in that
window, their rate, and the time to every chunk extrapolated at that rate, labelled as such. The run is cut
there (its workers stopped, its queued batches deleted with the row's Redis keys; the API's collector thread is
left waiting on a batch that will not come, a daemon thread that ends with this process).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from bench.synth_vault import generate
from bench.tables import print_value_table
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.redis_client import redis_client
from sentinel.search.embedding import chunk_passage, embed_pending, summary_passages
from sentinel.settings import Settings


@dataclass
class Searchable:
    pages: int
    chunks: int
    index_s: float
    embed_s: float  # measured, or extrapolated from ``embedded`` chunks
    embedded: int  # chunks really embedded (all of them unless sampled)
    truncated: int  # of those, cut at e5's 512 tokens
    pages_s: float = 0.0  # embedding time until every summary vector was in: searchable by meaning per page

    @property
    def how(self) -> str:
        if self.embedded >= self.chunks:
            return "measured"
        return f"index measured; embedding from {self.embedded} of {self.chunks} chunks at their rate"


def _settings(vault: Path, scratch: Path) -> Settings:
    return Settings(vault=vault, index_path=scratch / "index.db", sync_interval_s=0, _env_file=None)


def _passages(db: sqlite3.Connection) -> list[str]:
    """Every distinct chunk passage of the index, in index order (what ``embed_pending`` sends)."""
    rows = db.execute(
        "SELECT trail, text FROM chunks WHERE id IN (SELECT MIN(id) FROM chunks GROUP BY text_hash, trail) ORDER BY id"
    ).fetchall()
    return [chunk_passage(trail, text) for trail, text in rows]


def vault_chunks(vault: Path) -> list[str]:
    """Every distinct chunk passage of ``vault``."""
    with tempfile.TemporaryDirectory(prefix="chunks-") as scratch:
        settings = _settings(vault, Path(scratch))
        db = open_index(settings)
        sync(settings, db)
        passages = _passages(db)
        db.close()
    return passages


def spread(items: list[str], count: int) -> list[str]:
    """``count`` items taken evenly over ``items`` (all of them when there are fewer)."""
    if count >= len(items):
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def time_to_searchable(vault: Path, embedder: OnnxEmbedder, sample: int = 0) -> Searchable:
    """Index ``vault`` from nothing, then embed its chunks (all, or ``sample`` of them and extrapolate)."""
    scratch = Path(tempfile.mkdtemp(prefix="searchable-"))
    try:
        settings = _settings(vault, scratch)
        db = open_index(settings)
        started = time.perf_counter()
        report = sync(settings, db)
        index_s = time.perf_counter() - started
        total = int(db.execute("SELECT COUNT(*) FROM (SELECT 1 FROM chunks GROUP BY text_hash, trail)").fetchone()[0])
        summaries = list(summary_passages(db))
        if sample and sample < total:
            passages = spread(_passages(db), sample)
            started = time.perf_counter()
            embedder.embed(summaries, "passage")
            pages_s = time.perf_counter() - started
            started = time.perf_counter()
            result = embedder.embed(passages, "passage")
            embed_s = pages_s + (time.perf_counter() - started) * total / len(passages)
            embedded, truncated = len(passages), sum(result.truncated)
        else:
            started = time.perf_counter()
            reached: list[float] = []

            def progress(done: int, _: int) -> None:
                if done >= len(summaries) and not reached:
                    reached.append(time.perf_counter() - started)

            counts = embed_pending(db, embedder, progress=progress)
            embed_s, embedded, truncated = counts.seconds, counts.chunks, len(counts.truncated)
            pages_s = reached[0] if reached else embed_s
        db.close()
        return Searchable(len(report.changed_paths), total, index_s, embed_s, embedded, truncated, pages_s)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


ROOT = Path(__file__).resolve().parents[1]
E5_DIR = ROOT / "models" / "multilingual-e5-small"
REDIS_URL = "redis://127.0.0.1:6379/13"


def _workers(count: int, settings: Settings, logs: Path) -> list[subprocess.Popen[bytes]]:
    """``count`` embedding workers, each pinned to its own core with one ONNX thread, ready to take batches."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]), "OPENBLAS_NUM_THREADS": "1",
           "SENTINEL_REDIS_URL": settings.redis_url, "SENTINEL_REDIS_PREFIX": settings.redis_prefix,
           "SENTINEL_EMBED_MODEL_DIR": str(E5_DIR), "SENTINEL_EMBED_THREADS": "1", "SENTINEL_EMBEDDER_URL": "",
           "SENTINEL_VAULT": str(settings.vault), "SENTINEL_INDEX_PATH": str(settings.index_path)}  # fmt: skip
    cores = sorted(os.sched_getaffinity(0))
    started = []
    for i in range(count):
        log = (logs / f"worker-{i}.log").open("wb")
        command = ["taskset", "-c", str(cores[i % len(cores)]), sys.executable, "-m", "celery", "-A",
                   "services.worker.celery_app", "worker", "--pool", "solo", "-Q", "sentinel.embed",
                   "-n", f"bench{i}-{uuid.uuid4().hex[:4]}@%h", "--without-mingle", "--without-gossip"]  # fmt: skip
        started.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT))
    deadline = time.monotonic() + 300
    try:
        while (
            sum("embedder-ready" in (logs / f"worker-{i}.log").read_text(errors="replace") for i in range(count))
            < count
        ):
            if time.monotonic() > deadline or any(p.poll() is not None for p in started):
                raise SystemExit(f"the workers did not get ready; see {logs}")
            time.sleep(0.5)
    except BaseException:  # not ready, or interrupted: no worker outlives the bench
        _stop(started)
        raise
    return started


def _stop(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        worker.wait(timeout=120)  # a worker finishes the batch it holds first


@dataclass
class SplitRow:
    """One split run: seconds to page level, and to every chunk (measured, or extrapolated when cut)."""

    pages_s: float
    all_s: float
    status: dict[str, object]
    measured: bool = True  # False: the run was cut ``window_s`` after page level (``--until pages``)
    window_s: float = 0.0
    window_chunks: int = 0  # chunks stored in that window

    @property
    def chunk_rate(self) -> float:
        return self.window_chunks / self.window_s if self.window_s else 0.0


def split_run(
    template: Path, vault: Path, count: int, scratch: Path, *, until_pages: bool = False, window_s: float = 180.0
) -> SplitRow:
    """One split run over a fresh copy of the indexed template: seconds to page level and to every chunk.
    ``until_pages``: cut ``window_s`` after page level, extrapolating the chunks from their rate in that window."""
    from sentinel.tools.context import ToolContext
    from services.api.embed_run import EmbedRuns  # the API's own run, without its HTTP shell

    run_dir = scratch / f"workers-{count}"
    run_dir.mkdir()
    shutil.copy(template, run_dir / "index.db")
    settings = Settings(vault=vault, index_path=run_dir / "index.db", redis_url=REDIS_URL,
                        redis_prefix=f"bench-{uuid.uuid4().hex[:8]}:", _env_file=None)  # fmt: skip
    ctx = ToolContext(settings=settings, embedder=OnnxEmbedder(E5_DIR, threads=1))
    workers = _workers(count, settings, run_dir)
    try:
        runs = EmbedRuns(ctx)
        started = time.perf_counter()
        status = runs.start()
        pages_s: float | None = None
        chunks_at_pages = 0
        while status["state"] == "running":
            time.sleep(0.1)
            status = runs.status()
            now = time.perf_counter() - started
            if pages_s is None and status["page_vectors"]["done"] >= status["page_vectors"]["total"]:
                pages_s, chunks_at_pages = now, status["chunks"]["done"]
            if until_pages and pages_s is not None and now - pages_s >= window_s:
                chunks = status["chunks"]
                window_chunks = chunks["done"] - chunks_at_pages
                rate = window_chunks / (now - pages_s)
                left = chunks["total"] - chunks["done"]
                all_s = now + left / rate if rate else float("inf")
                return SplitRow(pages_s, all_s, status, False, now - pages_s, window_chunks)
        all_s = time.perf_counter() - started
        if status["state"] != "finished":
            raise SystemExit(f"the run failed: {status['error']}")
        return SplitRow(pages_s or all_s, all_s, status)
    finally:
        _stop(workers)
        with ctx.write_lock:  # a cut run's collector may be storing the workers' last batch
            ctx.close()
        client = redis_client(REDIS_URL)
        for key in client.scan_iter(match=f"{settings.redis_prefix}*"):
            client.delete(key)


def _row_value(got: SplitRow, chunks: int) -> str:
    taken = sorted(got.status["batches_by_worker"].values(), reverse=True)  # type: ignore[attr-defined]
    pages = got.status["page_vectors"]["total"]  # type: ignore[index]
    head = f"page level ({pages} page vectors) {got.pages_s:.0f} s"
    if got.measured:
        return f"{head}, every chunk {got.all_s:.0f} s ({chunks / got.all_s:.1f} chunks/s); batches by worker {taken}"
    if not got.window_chunks:
        return (f"{head}; chunks not measured: none stored in the {got.window_s:.0f} s after page level (a longer "
                f"--chunk-window gives their rate); batches by worker {taken}")  # fmt: skip
    return (
        f"{head}; chunks not measured: {got.window_chunks} stored in the {got.window_s:.0f} s after page level "
        f"({got.chunk_rate:.1f} chunks/s so far), every chunk ~{got.all_s / 60:.0f} min (extrapolated at that "
        f"rate, not measured); batches by worker {taken}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time to searchable with the embedding split across workers.")
    parser.add_argument("--pages", type=int, default=1000, help="pages of the synthetic vault")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts, one row each")
    parser.add_argument("--in-process", action="store_true", help="add sentinel embed's run on one thread")
    parser.add_argument("--until", choices=["chunks", "pages"], default="chunks",
                        help="chunks: measure to every chunk; pages: cut each worker row --chunk-window s after "
                             "page level and extrapolate the chunks")  # fmt: skip
    parser.add_argument("--chunk-window", type=float, default=180.0, help="seconds of chunks after page level")
    args = parser.parse_args(argv)
    if args.until == "pages" and args.in_process:
        parser.error("--in-process embeds every chunk: leave it out with --until pages")
    if args.chunk_window <= 0:
        parser.error(
            f"--chunk-window must be > 0 seconds (the chunks' rate is measured over it), not {args.chunk_window}"
        )
    scratch = Path(tempfile.mkdtemp(prefix="split-searchable-"))
    try:
        vault = scratch / "vault"
        generate(vault, args.pages)
        settings = _settings(vault, scratch)
        db = open_index(settings)
        started = time.perf_counter()
        sync(settings, db)
        index_s = time.perf_counter() - started
        chunks = int(db.execute("SELECT COUNT(*) FROM (SELECT 1 FROM chunks GROUP BY text_hash, trail)").fetchone()[0])
        db.close()
        rows = [("indexed (lexical search works)", f"{index_s:.0f} s: {args.pages} pages, {chunks} distinct chunks")]
        print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
        if args.in_process:
            load = os.getloadavg()[0]
            base = time_to_searchable(vault, OnnxEmbedder(E5_DIR, threads=1))
            rows.append((f"in process, 1 thread (load {load:.1f})",
                         f"page level {base.pages_s:.0f} s, every chunk {base.embed_s:.0f} s "
                         f"({base.chunks / base.embed_s:.1f} chunks/s)"))  # fmt: skip
        for count in args.workers:
            load = os.getloadavg()[0]
            got = split_run(scratch / "index.db", vault, count, scratch,
                            until_pages=args.until == "pages", window_s=args.chunk_window)  # fmt: skip
            rows.append((f"{count} worker(s), 1 core each (load {load:.1f} before, {os.getloadavg()[0]:.1f} after)",
                         _row_value(got, chunks)))  # fmt: skip
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)  # each row as it ends: a long run shows its rows
        print_value_table(f"time to searchable by meaning, {args.pages} synthetic pages, after indexing", rows)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
