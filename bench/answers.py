"""Answers a person reads, measured: a fixed set of vault questions (bench/answers_set.tsv, four languages, each
with the fact a right answer holds and the page it comes from) asked of the eval vault with the small Qwen.

Two paths:
  - pipeline: ``sentinel.answer`` (code runs the ladder, the model writes cited sentences, the support gate checks
    each one; the extractive answer when none holds), the path Open WebUI's Sentinel model, ``sentinel ask``,
    ``/v1/ask`` and MCP take;
  - tools: the tool loop (``sentinel chat``'s harness: the model calls the seven primitives itself, then answers),
    the path a model that passes setup's tool-calling probe gets.
Per path it prints: the share of answers citing a relevant page (pipeline: a citation; tools: the page named in
the answer), holding the expected fact, written by the model and kept (pipeline: ``answered``), sentences the
support gate dropped, answers showing call-shaped text (must be 0), latency p50/p95 (the model warm: one
question is asked first and not counted). The set chose nothing (no threshold or weight was tuned on it).

    .venv/bin/python -m bench.answers                    # needs `make llm models` and the eval vault
    .venv/bin/python -m bench.answers --paths pipeline --limit 12
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import drafts
from sentinel import prompts
from sentinel.answer import Turn, answer_turn
from sentinel.answer.compose import call_shaped
from sentinel.chat.control import TurnControl
from sentinel.chat.loop import run_turn
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.providers import provider_for
from sentinel.search import embed_pending
from sentinel.settings import ProviderSettings, Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.registry import run_tool, tool_schemas
from tests.support.eval_data import eval_vault_path
from tests.support.llama import MODEL_ALIAS, llama_server

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "bench" / "answers_set.tsv"
CTX = 4096
TOOLS_PROMPT = prompts.SYSTEM_PROMPT.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Question:
    id: str
    lang: str
    text: str
    facts: tuple[str, ...]
    pages: tuple[str, ...]


@dataclass
class Outcome:
    cites: bool
    fact: bool
    written: bool
    dropped: int
    shaped: bool
    seconds: float


@dataclass
class Tally:
    rows: list[Outcome] = field(default_factory=list)

    def share(self, name: str) -> str:
        if not self.rows:
            return "-"
        hits = sum(bool(getattr(row, name)) for row in self.rows)
        return f"{hits}/{len(self.rows)} ({hits / len(self.rows):.0%})"


def load(path: Path) -> list[Question]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        Question(
            r["id"],
            r["lang"],
            r["question"],
            tuple(f.strip() for f in r["fact"].split(" | ") if f.strip()),
            tuple(p.strip() for p in r["pages"].split(" | ") if p.strip()),
        )
        for r in rows
    ]


def holds(text: str, facts: tuple[str, ...]) -> bool:
    folded = text.casefold()
    return any(fact.casefold() in folded for fact in facts)


def ask_pipeline(ctx: ToolContext, provider, question: Question) -> Outcome:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    answer = answer_turn(ctx, provider, Turn([{"role": "user", "content": question.text}]), MODEL_ALIAS)
    seconds = time.perf_counter() - started
    cited = {c.path for c in answer.citations}
    return Outcome(
        cites=bool(cited & set(question.pages)),
        fact=holds(answer.answer, question.facts),
        written=answer.answered,
        dropped=answer.dropped,
        shaped=call_shaped(answer.answer),
        seconds=seconds,
    )


def ask_tools(ctx: ToolContext, provider, question: Question) -> Outcome:  # type: ignore[no-untyped-def]
    messages = [{"role": "system", "content": TOOLS_PROMPT}, {"role": "user", "content": question.text}]
    started = time.perf_counter()
    turn = run_turn(
        provider,
        messages,
        tool_schemas(),
        lambda name, args, turn_id: run_tool(ctx, name, args, turn_id, chat=turn_id),
        TurnControl(ctx.settings.chat.max_tool_calls, ctx.settings.chat.retries_per_tool),
        number=1,
        turn_id=f"bench-{question.id}",
        reply_tokens=ctx.settings.answer.reply_tokens,
        temperature=0.0,
    )
    seconds = time.perf_counter() - started
    named = any(
        page.removesuffix(".md").rsplit("/", 1)[-1] in turn.answer or page in turn.answer for page in question.pages
    )
    return Outcome(
        named, holds(turn.answer, question.facts), bool(turn.answer.strip()), 0, call_shaped(turn.answer), seconds
    )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def report(path: str, tallies: dict[str, Tally]) -> None:
    print(f"\n{path}")
    print(
        "| set | cites a relevant page | holds the fact | written and kept | dropped sentences | call-shaped shown "
        "| p50 s | p95 s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, tally in tallies.items():
        seconds = [row.seconds for row in tally.rows]
        dropped = sum(row.dropped for row in tally.rows)
        shaped = sum(row.shaped for row in tally.rows)
        print(
            f"| {name} | {tally.share('cites')} | {tally.share('fact')} | {tally.share('written')} | {dropped} | "
            f"{shaped} | {statistics.median(seconds) if seconds else 0:.1f} | {percentile(seconds, 0.95):.1f} |"
        )


def synced_context(vault: Path, index: Path, embed_model: Path) -> ToolContext:
    """The tools' context over ``vault``: its index synced and every chunk embedded, as the stack's worker leaves it."""
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    embedder = OnnxEmbedder(embed_model, threads=int(os.environ.get("EMBED_THREADS", "2")))
    embed_pending(db, embedder)
    return ToolContext(settings=settings, embedder=embedder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=SET)
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    parser.add_argument("--index", type=Path, default=ROOT / ".cache" / "bench" / "eval-index.db")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--paths", default="pipeline,tools", help="pipeline, tools, or both (comma-separated)")
    parser.add_argument("--limit", type=int, default=0, help="ask only the first N questions of each language")
    parser.add_argument("--tools-limit", type=int, default=2, help="the tool loop is slow: questions per language")
    parser.add_argument("--drafts", type=Path, help="append the pipeline's drafts and packets here (bench/drafts.py)")
    args = parser.parse_args(argv)
    questions = load(args.set)
    if args.limit:
        questions = [q for q in questions if int(q.id[-2:]) <= args.limit]
    ctx = synced_context(args.vault, args.index, args.embed_model)
    print(f"{len(questions)} questions over {args.vault} ({os.cpu_count()} CPUs); the model: {MODEL_ALIAS}, ctx {CTX}")
    with llama_server(ctx=CTX) as url, drafts.recording(args.drafts, "warm"):
        provider = provider_for(ProviderSettings(kind="openai", base_url=url, model=MODEL_ALIAS, num_ctx=CTX), "bench")
        ask_pipeline(ctx, provider, questions[0])  # warm: the model loaded, the first prefill paid
        for path in args.paths.split(","):
            asked = questions if path == "pipeline" else [q for q in questions if int(q.id[-2:]) <= args.tools_limit]
            run = ask_pipeline if path == "pipeline" else ask_tools
            tallies: dict[str, Tally] = {"all": Tally()}
            for question in asked:
                drafts.label_of(question.id)
                outcome = run(ctx, provider, question)
                tallies["all"].rows.append(outcome)
                tallies.setdefault(question.lang, Tally()).rows.append(outcome)
                print(
                    f"  {path} {question.id}: cites={outcome.cites} fact={outcome.fact} written={outcome.written} "
                    f"dropped={outcome.dropped} {outcome.seconds:.1f}s",
                    flush=True,
                )
            report(path, tallies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
