"""Pages per minute of the analysis pass with the real small model on 2 cores, split load/prefill/generation.

    .venv/bin/python -m bench.maintain_speed [--pages 12] [--threads 2] [--ctx 4096] [--lang en]

Starts the llama.cpp server the tests use (tests/support/llama.py; needs `make llm`) and times its start as the
model load. Copies ``--pages`` pages (the smallest, or ``--spread`` over all sizes) of one language of the eval
vault into a fresh vault, then runs the analysis step of the pass (every gate included) page by page and prints
per-page and total timings. A page longer than the window fails unless a summary role with a larger window is
configured (the summary must read it whole): that is the gate working, and it shows in the table.
Prefill and generation come from llama.cpp's own per-request ``timings``; "other" is the rest of the wall
clock (HTTP, JSON-schema grammar, the gates, SQLite). The machine's load average is printed with the table:
other work on the two cores slows both phases, often by several times.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.maintain import analysis, queue
from sentinel.maintain.models import Models
from sentinel.maintain.text import read_page_text
from sentinel.providers import ChatResult, Timings
from sentinel.providers.openai_compat import OpenAICompatProvider
from sentinel.settings import ProviderSettings, Settings
from tests.support.eval_data import eval_vault_path
from tests.support.llama import MODEL_ALIAS, llama_server

EVAL = eval_vault_path()


class LlamaTimedProvider(OpenAICompatProvider):
    """The OpenAI-compatible provider, plus llama.cpp's non-standard ``timings`` block read into the split."""

    def _result_from(self, payload: dict[str, Any], total_s: float) -> ChatResult:
        result = super()._result_from(payload, total_s)
        timings = payload.get("timings") or {}
        if "prompt_ms" not in timings:
            return result
        split = Timings(total_s, 0.0, timings["prompt_ms"] / 1000, timings["predicted_ms"] / 1000)
        return dataclasses.replace(result, timings=split)


def pick_pages(lang: str, count: int, spread: bool) -> list[Path]:
    """The smallest ``count`` pages (stubs under 400 bytes skipped), or ``count`` pages spread evenly over the
    size range (long ones then need the extraction windows)."""
    pages = sorted((EVAL / lang).rglob("*.md"), key=lambda p: (p.stat().st_size, str(p)))
    pages = [p for p in pages if p.stat().st_size >= 400]
    if not spread:
        return pages[:count]
    step = (len(pages) - 1) / max(1, count - 1)
    return [pages[round(i * step)] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--spread", action="store_true", help="pages across the size range, not the smallest")
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="maintain-bench-") as tmp:
        vault = Path(tmp) / "vault"
        for page in pick_pages(args.lang, args.pages, args.spread):
            target = vault / "notes" / page.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(page.read_bytes())
        settings = Settings(_env_file=None, vault=vault, index_path=Path(tmp) / "index.db")
        db = open_index(settings)
        sync(settings, db)
        started = time.perf_counter()
        with llama_server(ctx=args.ctx, threads=args.threads) as base_url:
            load_s = time.perf_counter() - started
            role = ProviderSettings(kind="openai", base_url=base_url, model=MODEL_ALIAS, num_ctx=args.ctx)
            provider = LlamaTimedProvider(role)
            models = Models(provider, provider, MODEL_ALIAS)
            known = queue.known_concepts(db)
            table = Table(
                title=(
                    f"analysis, Qwen2.5-Coder-0.5B Q4_K_M, llama.cpp, {args.threads} threads, ctx {args.ctx}; "
                    f"model load (server start) {load_s:.1f} s; load avg {load_before:.1f} before"
                )
            )
            for column in (
                "page",
                "chars",
                "status",
                "concepts",
                "calls",
                "prompt tok",
                "gen tok",
                "prefill s",
                "gen s",
                "other s",
                "wall s",
            ):
                table.add_column(column, justify="right")
            walls, prefills, gens, oks = [], [], [], 0
            pass_started = time.perf_counter()
            for due in queue.awaiting_analysis(db):
                page = read_page_text(vault, due.path, due.role)
                assert page is not None
                outcome = analysis.analyse_page(page, models, settings, known)
                analysis.store(db, outcome, models.label)
                prefill = sum(c.timings.prefill_s or 0.0 for c in outcome.calls)
                gen = sum(c.timings.generation_s or 0.0 for c in outcome.calls)
                walls.append(outcome.wall_s)
                prefills.append(prefill)
                gens.append(gen)
                oks += outcome.status == "ok"
                table.add_row(
                    due.path.removeprefix("notes/")[:32],
                    str(len(page.text)),
                    outcome.status,
                    str(len(outcome.concepts)),
                    str(len(outcome.calls)),
                    str(sum(c.prompt_tokens or 0 for c in outcome.calls)),
                    str(sum(c.completion_tokens or 0 for c in outcome.calls)),
                    f"{prefill:.1f}",
                    f"{gen:.1f}",
                    f"{outcome.wall_s - prefill - gen:.1f}",
                    f"{outcome.wall_s:.1f}",
                )
            elapsed = time.perf_counter() - pass_started
    Console(width=160).print(table)
    pages = len(walls)
    print(
        f"{pages} pages ({oks} ok) in {elapsed:.0f} s: {60 * pages / elapsed:.1f} pages/min; per page median "
        f"prefill {statistics.median(prefills):.1f} s, generation {statistics.median(gens):.1f} s, "
        f"wall {statistics.median(walls):.1f} s; model load once {load_s:.1f} s; load avg after "
        f"{os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
