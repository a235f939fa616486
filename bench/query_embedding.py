"""What one search query's embedding costs, piece by piece, and what ONNX Runtime's session options change.

    python -m bench.query_embedding [--queries 40] [--rounds 3] [--flush-mb 256] [--idle-ms 50]

A search embeds one short text (``query: `` and a few words) per query, on the search pool's thread while the
caller's thread runs the lexical leg (sentinel.search.meaning). This measures, on real questions (the eval
vault's question files in bench/, every language) cut to 2-6 words like bench/search_latency.py's queries:

  embed()       the serving path (sentinel.embed.onnx.OnnxEmbedder.embed): tokenise, prefix, run, pool
  tokenise      the tokenizer alone, and the tokens a query has (a single query is never padded)
  run: <name>   session.run on pre-tokenised input for session variants: intra-op threads 1 and 2, spinning
                on and off, graph optimisation levels, the CPU arena; each with the largest difference of its
                token states from the serving session's (0: the same vectors)

each three ways: warm (the query before it embedded by the same session, as back-to-back benchmark queries
are), after ``--flush-mb`` of memory read just before (as a search's sign-bit scan reads 50 MB between two
queries at 100k pages: the model's ~25 MB of layer weights are then read from memory again), and after
``--idle-ms`` idle (as a person's queries come seconds apart while other work runs). The variants run
interleaved query by query, so load from other work hits them alike; p50 wall and the CPU of the whole
process (ORT's worker threads included) are printed, with the load average at start and end, and the
resident memory one more session of the model adds. The first variant of a query rotates, and a session with
spinning on is left 50 ms to settle after each call (its idle worker burns ~20 ms of CPU spinning after a run;
process CPU would count that against the call that follows: seen at first, a variant after it measured twice).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: BLAS threads fight ONNX Runtime's

import argparse
import csv
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort

from bench.tables import print_value_table
from sentinel.embed.onnx import OnnxEmbedder

ROOT = Path(__file__).resolve().parents[1]

QUESTION_FILES = ("vault_questions.tsv", "heldout_queries.tsv", "vault_questions_fresh.tsv")
LEVELS = {"all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL, "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED}
LEVELS["basic"] = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
# name -> (intra-op threads, spinning, optimisation level, CPU arena); the first is the serving session's options
# at the search benches' thread count (bench/search_latency.py: EMBED_THREADS, default 1)
VARIANTS = {
    "1 thread (as served)": (1, False, "all", False),
    "2 threads, spinning off (settings' default)": (2, False, "all", False),
    "2 threads, spinning on": (2, True, "all", False),
    "1 thread, optimisation extended": (1, False, "extended", False),
    "1 thread, optimisation basic": (1, False, "basic", False),
    "1 thread, CPU arena on": (1, False, "all", True),
}


SPIN_SETTLE_S = 0.05  # after a spinning session's run, before the next timed call: its workers spin ~20 ms


def questions(count: int) -> list[str]:
    """``count`` eval questions cut to 2-6 words, deterministic."""
    rng = np.random.default_rng(11)
    texts: list[str] = []
    for name in QUESTION_FILES:
        with (ROOT / "bench" / name).open(encoding="utf-8") as rows:
            texts += [row["query"] for row in csv.DictReader(rows, delimiter="\t")]
    picked = rng.choice(len(texts), size=min(count, len(texts)), replace=False)
    return [" ".join(texts[i].split()[: int(rng.integers(2, 7))]) for i in picked.tolist()]


def session(model: Path, threads: int, spinning: bool, level: str, arena: bool) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    options.graph_optimization_level = LEVELS[level]
    options.enable_cpu_mem_arena = arena
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    return ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--flush-mb", type=int, default=256, help="memory read before a cold embedding")
    parser.add_argument("--idle-ms", type=int, default=50, help="idle time before an idle-cold embedding")
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    args = parser.parse_args(argv)
    load = Path("/proc/loadavg").read_text().split()[:3]
    embedder = OnnxEmbedder(args.model, threads=1)
    texts = questions(args.queries)
    tokenizer = embedder._tokenizer  # the serving path's own tokenizer and feeds, to time the pieces
    token_ids = {
        t: [embedder._bos, *tokenizer.encode("query: " + t, add_special_tokens=False).ids, embedder._eos] for t in texts
    }

    def feeds(text: str) -> dict[str, np.ndarray]:
        ids = np.array([token_ids[text]], dtype=np.int64)
        return {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}

    before = resident_mb()
    sessions = {name: session(embedder.files.model, *options) for name, options in VARIANTS.items()}
    for opened in sessions.values():
        opened.run(None, feeds(texts[0]))
    one_more = (resident_mb() - before) / len(sessions)
    calls: dict[str, Callable[[str], object]] = {
        "embed()": lambda t: embedder.embed([t], "query"),
        "tokenise": lambda t: tokenizer.encode_batch(["query: " + t], add_special_tokens=False),
    }

    def runner(opened: ort.InferenceSession) -> Callable[[str], object]:
        return lambda text: opened.run(["last_hidden_state"], feeds(text))

    calls |= {f"run: {name}": runner(opened) for name, opened in sessions.items()}
    spinning = {f"run: {name}" for name, options in VARIANTS.items() if options[1]}
    served = embedder._session
    differs = {
        name: max(float(np.abs(s.run(None, feeds(t))[0] - served.run(None, feeds(t))[0]).max()) for t in texts)
        for name, s in sessions.items()
    }
    flush = np.ones(args.flush_mb << 17, dtype=np.uint64)
    took: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for call in calls.values():  # warm-up
        call(texts[0])
    names = list(calls)
    for _ in range(args.rounds):
        for at, text in enumerate(texts):
            for name in names[at % len(names) :] + names[: at % len(names)]:  # each variant first in turn
                call = calls[name]
                for state in ("warm", "after a flush", "after idle"):
                    if state == "warm":
                        call(text)
                    elif state == "after a flush":
                        flush.sum()
                    else:
                        time.sleep(args.idle_ms / 1000)
                    wall, cpu = time.perf_counter(), time.process_time()
                    call(text)
                    took.setdefault((name, state), []).append((time.perf_counter() - wall, time.process_time() - cpu))
                    if name in spinning:  # its idle workers spin on: their CPU would count against the next call
                        time.sleep(SPIN_SETTLE_S)
    rows = [
        (
            "load average at start / end",
            f"{' '.join(load)} / {' '.join(Path('/proc/loadavg').read_text().split()[:3])}",
        ),
        (
            "queries x rounds; tokens per query (min / p50 / max)",
            f"{len(texts)} x {args.rounds}; "
            f"{min(map(len, token_ids.values()))} / {statistics.median(map(len, token_ids.values())):.0f} / "
            f"{max(map(len, token_ids.values()))}",
        ),
    ]
    for (name, state), values in took.items():
        wall = statistics.median(w for w, _ in values) * 1000
        cpu = statistics.median(c for _, c in values) * 1000
        rows.append((f"{name}, {state}: p50 wall / CPU (ms)", f"{wall:.2f} / {cpu:.2f}"))
    rows += [(f"largest |difference| of token states, {name}", f"{value:.2g}") for name, value in differs.items()]
    rows.append(("resident memory one more session adds (MB)", f"{one_more:.0f}"))
    print_value_table(f"one query's embedding ({args.model.name})", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
