"""Embedding throughput: the HTTP embedder service against a raw ONNX Runtime session, int8 and fp32, same run.

    .venv/bin/python -m bench.embed_throughput [--passages 256] [--batch 32] [--threads 2] [--repeats 3]

Needs `make models`. Passages are ~120-word pieces of the eval vault's pages (the size of real body chunks).
Per model file it measures, interleaved so that load from other work hits every path alike (medians printed):
  raw       a bare onnxruntime session on pre-tokenised, pre-padded batches: the model's ceiling
  in-proc   sentinel.embed.onnx.OnnxEmbedder (tokenise, prefix, run, pool)
  http      sentinel.embed.http.HttpEmbedder against the service as its own process on loopback
plus single-query latency (p50) raw and over HTTP, and the service process's resident memory (now and peak).
The target is http >= 0.85 x raw. The machine's load average is printed: other work on 2 cores skews all rows.
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

from sentinel.embed.http import HttpEmbedder
from sentinel.embed.onnx import E5_MAX_TOKENS, OnnxEmbedder, locate_model_files
from tests.support.embedder import E5_DIR, REPO_ROOT, embedder_service

EVAL_VAULT = REPO_ROOT.parent / "shared" / "eval" / "obsidian-help"
MODEL_FILES = ("model.onnx", "model_fp32.onnx")
QUERIES = ("how do I link to a heading", "şablon eklentisi nasıl açılır", "Tastenkürzel ändern", "sync settings")


def eval_passages(count: int, words_per_passage: int = 120) -> list[str]:
    """The first ``count`` passages of the eval vault, paragraphs joined up to ~``words_per_passage`` words."""
    pages = sorted(EVAL_VAULT.rglob("*.md"))
    if not pages:
        raise SystemExit(f"no pages under {EVAL_VAULT}: the eval vault lies in shared/ beside the repo")
    passages, words = [], []
    for page in pages:
        for paragraph in page.read_text(encoding="utf-8").split("\n\n"):
            words += paragraph.split()
            if len(words) >= words_per_passage:
                passages.append(" ".join(words[:words_per_passage]))
                words = []
                if len(passages) == count:
                    return passages
    return passages


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


def rate(work: Callable[[], object], n: int) -> float:
    started = time.perf_counter()
    work()
    return n / (time.perf_counter() - started)


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
    raw = raw_session_runner(args.model_dir, model_file, texts, args.threads, args.batch)
    local = OnnxEmbedder(args.model_dir, threads=args.threads, batch=args.batch, model_file=model_file)
    with embedder_service(
        args.model_dir, log, threads=args.threads, batch=args.batch, model_file=model_file
    ) as service:
        remote = HttpEmbedder(service.url, batch=args.batch)
        paths: dict[str, Callable[[], object]] = {
            "raw": raw,
            "in-proc": lambda: local.embed(texts, "passage"),
            "http": lambda: remote.embed(texts, "passage"),
        }
        for work in paths.values():  # warm up: first runs allocate and pick kernels
            work()
        rates: dict[str, list[float]] = {name: [] for name in paths}
        for _ in range(args.repeats):
            for name, work in paths.items():
                rates[name].append(rate(work, len(texts)))
        single = OnnxEmbedder(args.model_dir, threads=args.threads, batch=1, model_file=model_file)
        result = {name: statistics.median(values) for name, values in rates.items()}
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
    args = parser.parse_args()
    texts = eval_passages(args.passages)
    results = {}
    with tempfile.TemporaryDirectory(prefix="embed-bench-") as scratch:
        for model_file in MODEL_FILES:
            results[model_file] = measure(model_file, texts, args, Path(scratch) / f"{model_file}.log")
    table = Table(
        title=f"e5-small embedding, {len(texts)} passages of ~120 words, batch {args.batch}, "
        f"{args.threads} threads (load average {os.getloadavg()[0]:.1f})"
    )
    for column in ("model file", "raw p/s", "in-proc p/s", "http p/s", "http / raw", "query p50 in-proc ms"):
        table.add_column(column, justify="right")
    for column in ("query p50 http ms", "service RSS MiB", "service peak MiB"):
        table.add_column(column, justify="right")
    for model_file, r in results.items():
        table.add_row(
            model_file,
            f"{r['raw']:.1f}",
            f"{r['in-proc']:.1f}",
            f"{r['http']:.1f}",
            f"{r['http'] / r['raw']:.2f}",
            f"{r['query_ms_in_proc']:.1f}",
            f"{r['query_ms_http']:.1f}",
            f"{r['rss_mib']:.0f}",
            f"{r['peak_rss_mib']:.0f}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
