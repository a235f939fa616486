"""Prefill and generation speed of the small real LLM through llama.cpp's server, on 2 threads.

    .venv/bin/python -m bench.llm_speed [--sizes 128 512 1024 2048] [--gen 128] [--repeats 2] [--threads 2]

Starts the server the tests use (tests/support/llama.py; needs `make llm`), then for each prompt size sends
a chat request with the prompt cache off (every token is prefilled) and a fixed number of generated tokens
(end-of-sequence ignored), and prints the medians of llama.cpp's own timings. The machine's load average is
printed with the table: other work on the two cores slows both phases, often by several times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass

import httpx
from rich.console import Console
from rich.table import Table

from sentinel.serving import root_url
from tests.support.llama import MODEL_ALIAS, llama_server

# Plain English prose, the kind of text the analysis pass reads.
PARAGRAPH = (
    "Obsidian stores notes as plain Markdown files in a folder called a vault. Links between notes are "
    "written with double square brackets, and the graph view shows how the notes connect. Plugins extend the "
    "editor, and a sync service keeps the vault identical across devices with version history. "
)


@dataclass(frozen=True)
class Run:
    prompt_tokens: int
    prefill_tps: float
    generated: int
    generation_tps: float
    wall_s: float


def prompt_of(root: str, tokens: int) -> str:
    """Text that tokenizes to at least ``tokens`` tokens (counted by the server's own tokenizer)."""
    per_paragraph = len(httpx.post(f"{root}/tokenize", json={"content": PARAGRAPH}).json()["tokens"])
    return PARAGRAPH * max(1, -(-tokens // per_paragraph))


def one_run(base_url: str, prompt: str, generate: int) -> Run:
    started = time.perf_counter()
    response = httpx.post(
        f"{base_url}/chat/completions",
        json={
            "model": MODEL_ALIAS,
            "messages": [{"role": "user", "content": f"{prompt}\nSummarise the text above."}],
            "max_tokens": generate,
            "temperature": 0,
            "cache_prompt": False,
            "ignore_eos": True,
        },
        timeout=600,
    )
    response.raise_for_status()
    timings = response.json()["timings"]
    return Run(
        prompt_tokens=timings["prompt_n"],
        prefill_tps=timings["prompt_per_second"],
        generated=timings["predicted_n"],
        generation_tps=timings["predicted_per_second"],
        wall_s=time.perf_counter() - started,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 512, 1024, 2048], help="prompt tokens")
    parser.add_argument("--gen", type=int, default=128, help="tokens generated per request")
    parser.add_argument("--repeats", type=int, default=2, help="requests per size (medians are shown)")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp CPU threads (1 beats 2 on a busy machine)")
    args = parser.parse_args()
    ctx = max(args.sizes) + args.gen + 256

    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    with llama_server(ctx=ctx, threads=args.threads) as base_url:
        startup_s = time.perf_counter() - started
        root = root_url(base_url)
        one_run(base_url, PARAGRAPH, 8)  # warm-up: first-touch of weights, allocator
        table = Table(
            title=(
                f"Qwen2.5-Coder-0.5B Q4_K_M, llama.cpp (xllamacpp), {args.threads} threads, ctx {ctx}; "
                f"server ready in {startup_s:.1f} s; load avg {load_before:.1f} before"
            )
        )
        for column in ("prompt tokens", "prefill tok/s", "generated", "generation tok/s", "wall s"):
            table.add_column(column, justify="right")
        for size in args.sizes:
            prompt = prompt_of(root, size)
            runs = [one_run(base_url, prompt, args.gen) for _ in range(args.repeats)]
            table.add_row(
                str(runs[0].prompt_tokens),
                f"{statistics.median(run.prefill_tps for run in runs):.0f}",
                str(runs[0].generated),
                f"{statistics.median(run.generation_tps for run in runs):.1f}",
                f"{statistics.median(run.wall_s for run in runs):.1f}",
            )
    Console().print(table)
    print(f"load avg after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
