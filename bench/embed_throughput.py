"""Embedding throughput on the eval vault's real chunks: in process and through the service, against raw ORT;
then a vault's time to searchable (indexed, every chunk embedded) at 438 / 10k pages, 100k extrapolated.

    .venv/bin/python -m bench.embed_throughput [--passages 256] [--batch 32] [--threads 2] [--repeats 3]
        [--model-file model.onnx] [--pages 10000] [--sample 512] [--no-searchable]

Needs `make models`. Passages are real chunks (what ``sentinel embed`` sends: trail, then text), taken evenly
over every chunk of the eval vault. Per model file it measures, interleaved so that load from other work hits
every path alike (medians printed):
  raw       a bare onnxruntime session on pre-tokenised, pre-padded batches: the model's ceiling
  in-proc   sentinel.embed.onnx.OnnxEmbedder (tokenise, prefix, run, pool)
  http      sentinel.embed.http.HttpEmbedder against the service as its own process on loopback
plus CPU ms per passage (this process, and the service's for http: steadier than passages/s when other work
shares the 2 cores), single-query latency (p50) in-process and over HTTP, and the service's resident memory
(now and peak). The target is http >= 0.85 x raw. The machine's load average is printed with each table.

Time to searchable, in process: the eval vault (438 pages) and a synthetic vault of ``--pages``
(bench/synth_vault.py), each indexed whole from nothing, its embedding timed on ``--sample`` chunks spread over
it and extrapolated to all of them (``--sample 0``: every chunk embedded, measured whole); 100k pages
extrapolated from the synthetic vault, ten times its figures. The table says which figures are which.
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before numpy: its BLAS threads fight ONNX Runtime's (halves speed)

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort
from rich.console import Console
from rich.table import Table
from tokenizers import Tokenizer

from bench.synth_vault import generate
from bench.tables import print_value_table
from bench.time_to_searchable import Searchable, spread, time_to_searchable, vault_chunks
from sentinel.embed.http import HttpEmbedder
from sentinel.embed.onnx import E5_MAX_TOKENS, OnnxEmbedder, locate_model_files
from tests.support.embedder import E5_DIR, embedder_service
from tests.support.eval_data import eval_vault_path, missing_eval_vault

EVAL_VAULT = eval_vault_path()
MODEL_FILES = ("model.onnx", "model_fp32.onnx")
QUERIES = ("how do I link to a heading", "şablon eklentisi nasıl açılır", "Tastenkürzel ändern", "sync settings")


def raw_session_runner(model_dir: Path, model_file: str, texts: list[str], threads: int, batch: int) -> Callable:
    """Tokenise and pad once up front; the returned call only runs the session over every batch."""
    files = locate_model_files(model_dir, model_file)
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    session = ort.InferenceSession(str(files.model), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(files.tokenizer))
    pad = tokenizer.token_to_id("<pad>")
    encoded = [e.ids[:E5_MAX_TOKENS] for e in tokenizer.encode_batch(["passage: " + t for t in texts])]
    encoded.sort(key=len)
    feeds = []
    for start in range(0, len(encoded), batch):
        rows = encoded[start : start + batch]
        ids = np.full((len(rows), max(map(len, rows))), pad, dtype=np.int64)
        mask = np.zeros_like(ids)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        feeds.append({"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    names = {i.name for i in session.get_inputs()}

    def run() -> None:
        for feed in feeds:
            session.run(None, {k: v for k, v in feed.items() if k in names})

    return run


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (fields 14 and 15 of /proc/<pid>/stat, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(work: Callable[[], object], pids: tuple[int, ...]) -> tuple[float, float]:
    """Wall seconds of one run, and CPU seconds it cost this process plus ``pids`` (the service)."""
    cpu = sum(cpu_seconds(pid) for pid in (os.getpid(), *pids))
    started = time.perf_counter()
    work()
    wall = time.perf_counter() - started
    return wall, sum(cpu_seconds(pid) for pid in (os.getpid(), *pids)) - cpu


def p50_ms(work: Callable[[str], object]) -> float:
    times = []
    for _ in range(5):
        for query in QUERIES:
            started = time.perf_counter()
            work(query)
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def rss_mib(pid: int) -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def measure(model_file: str, texts: list[str], args: argparse.Namespace, log: Path) -> dict[str, float]:
    """passages/s and CPU ms/passage per path (medians over repeats), query latency, service memory."""
    raw = raw_session_runner(args.model_dir, model_file, texts, args.threads, args.batch)
    local = OnnxEmbedder(args.model_dir, threads=args.threads, batch=args.batch, model_file=model_file)
    single = OnnxEmbedder(args.model_dir, threads=args.threads, batch=1, model_file=model_file)
    with embedder_service(
        args.model_dir, log, threads=args.threads, batch=args.batch, model_file=model_file
    ) as service:
        remote = HttpEmbedder(service.url, batch=args.batch, timeout_s=900)  # a batch on a busy machine
        paths: dict[str, tuple[Callable[[], object], tuple[int, ...]]] = {
            "raw": (raw, ()),
            "in-proc": (lambda: local.embed(texts, "passage"), ()),
            "http": (lambda: remote.embed(texts, "passage"), (service.pid,)),
        }
        for work, _pids in paths.values():  # warm up: first runs allocate and pick kernels
            work()
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in paths}
        for _ in range(args.repeats):  # interleaved: load from other work hits every path alike
            for name, (work, pids) in paths.items():
                runs[name].append(timed(work, pids))
        result = {}
        for name, values in runs.items():
            result[name] = len(texts) / statistics.median(wall for wall, _cpu in values)
            result[name + " cpu"] = statistics.median(cpu for _wall, cpu in values) * 1000 / len(texts)
        result["query_ms_in_proc"] = p50_ms(lambda q: single.embed([q], "query"))
        result["query_ms_http"] = p50_ms(lambda q: remote.embed([q], "query"))
        result["rss_mib"], result["peak_rss_mib"] = rss_mib(service.pid)
        remote.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-dir", type=Path, default=E5_DIR)
    parser.add_argument("--passages", type=int, default=256)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model-file", action="append", help=f"model file(s) to compare (default: {MODEL_FILES})")
    parser.add_argument("--pages", type=int, default=10_000, help="the synthetic vault's size for time to searchable")
    parser.add_argument("--sample", type=int, default=512, help="chunks of each vault embedded (0: every one)")
    parser.add_argument("--no-searchable", action="store_true", help="skip time to searchable")
    args = parser.parse_args()
    if missing := missing_eval_vault():
        raise SystemExit(missing)
    texts = spread(vault_chunks(EVAL_VAULT), args.passages)
    load_before = os.getloadavg()[0]
    results = {}
    with tempfile.TemporaryDirectory(prefix="embed-bench-") as scratch:
        for model_file in args.model_file or MODEL_FILES:
            results[model_file] = measure(model_file, texts, args, Path(scratch) / f"{model_file}.log")
    console = Console()
    speed = Table(
        title=f"e5-small, {len(texts)} real eval-vault chunks, batch {args.batch}, {args.threads} threads "
        f"(load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after)"
    )
    for column in ("model file", "path", "chunks/s", "vs raw", "CPU ms/chunk"):
        speed.add_column(column, justify="right")
    for model_file, r in results.items():
        for path in ("raw", "in-proc", "http"):
            speed.add_row(model_file, path, f"{r[path]:.1f}", f"{r[path] / r['raw']:.2f}", f"{r[path + ' cpu']:.1f}")
    console.print(speed)
    service = Table(title="single query latency (p50) and the service process's memory")
    for column in ("model file", "query in-proc ms", "query http ms", "service RSS MiB", "service peak MiB"):
        service.add_column(column, justify="right")
    for model_file, r in results.items():
        service.add_row(
            model_file,
            f"{r['query_ms_in_proc']:.1f}",
            f"{r['query_ms_http']:.1f}",
            f"{r['rss_mib']:.0f}",
            f"{r['peak_rss_mib']:.0f}",
        )
    console.print(service)
    if not args.no_searchable:
        searchable_table(args)


def searchable_table(args: argparse.Namespace) -> None:
    """Time to searchable at 438 pages and ``--pages`` (index measured, embedding sampled unless ``--sample 0``)
    and 100k (ten times the latter, extrapolated)."""
    embedder = OnnxEmbedder(args.model_dir, threads=args.threads, batch=args.batch)
    load = os.getloadavg()[0]
    rows: list[tuple[str, Searchable, str]] = [
        ("eval vault", time_to_searchable(EVAL_VAULT, embedder, args.sample), "")
    ]
    with tempfile.TemporaryDirectory(prefix="synth-") as scratch:
        generate(Path(scratch), args.pages)
        synthetic = time_to_searchable(Path(scratch), embedder, args.sample)
    rows.append(("synthetic", synthetic, ""))
    ten = Searchable(synthetic.pages * 10, synthetic.chunks * 10, synthetic.index_s * 10, synthetic.embed_s * 10,
                     0, 0, synthetic.pages_s * 10)  # fmt: skip
    rows.append(("synthetic", ten, "extrapolated: ten times the row above"))
    lines = []
    for name, row, said in rows:
        total = row.index_s + row.embed_s
        cut = f", {row.truncated} of {row.embedded} embedded cut at 512 tokens" if row.embedded else ""
        lines.append(
            (
                f"{row.pages} pages ({name}), {row.chunks} chunks",
                f"{_duration(total)} = index {_duration(row.index_s)} + embed {_duration(row.embed_s)} "
                f"({row.chunks / row.embed_s:.1f} chunks/s{cut}); by meaning at page level (summaries, embedded "
                f"first) after index + {_duration(row.pages_s)}; {said or row.how}",
            )
        )
    print_value_table(
        f"time to searchable, in process, {args.threads} threads (load average {load:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after)",
        lines,
    )


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


if __name__ == "__main__":
    main()
