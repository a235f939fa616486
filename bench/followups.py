"""Follow-ups, measured: does the search for a turn that continues the question before it find that question's
page, and is a new question after an answer left alone?

bench/followups_set.tsv (committed before the rule; it chose nothing): 16 follow-ups, 4 per language, each after
the question it continues, and 12 new questions after an answer. For each, the body rung (the search a vault
answer's packet is built from) is run twice: on the turn alone (before) and on what ``answer.followup`` searches
(after). Printed per kind and language: how many turns the rule joined, the right page first, the right page in
the top 5; for the new questions also how many top-5 lists are unchanged. Then the packet the model reads for
each follow-up, built from the joined search as before stop 45 (``turn`` not given: the searched chunk of each
page, narrowed to the joined words) and as now (the follow-up's own words lead: ``answer.packet``): whether the
first passage holds the turn's fact, and whether any passage does. Since stop 45 the set has chosen a rule (the
follow-up rule of stop 44, and stop 45's packet rule was measured on it): its figures are a choosing set's.
Stop 52 added 4 follow-ups pointing back with a demonstrative and its noun (f-*5) and 5 new questions holding
such a word (n-en4, n-es4, n-tr4, n-en5), which chose ``followup.pointed_at`` (docs/answers.md).

    .venv/bin/python -m bench.followups --vault DIR --index FILE   # an index of the eval vault with vectors
    .venv/bin/python -m bench.followups --vault DIR --index FILE --answers   # the follow-ups asked of the small
        # Qwen through the pipeline (llama.cpp, as bench/answers.py): page cited first, fact, written, dropped
    .venv/bin/python -m bench.followups --vault DIR --index FILE --quoted   # each follow-up asked without a model
        # after the pipeline's own quoted answer to its question: page cited first, fact in what a person reads

``--set FILE`` reads another set of the same columns (bench/followups_platforms.tsv: a follow-up asking the
earlier answer's thing of another platform, stop 52; it names a page of the spent fifth browser file, so it is
kept out of this set, which tests/test_browser_turns.py holds apart from the held-out files).
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from dataclasses import dataclass
from pathlib import Path

from bench import drafts
from bench.answers import CTX
from bench.built_index import built_index
from sentinel.answer import Answer, Turn, answer_turn
from sentinel.answer.followup import asked
from sentinel.answer.packet import Packet, build_packet
from sentinel.answer.pipeline import budget_tokens
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.providers import provider_for
from sentinel.search.ladder import search
from sentinel.settings import ProviderSettings, Settings
from sentinel.tools.context import ToolContext
from tests.support.embedder import E5_DIR
from tests.support.llama import MODEL_ALIAS, llama_server

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "bench" / "followups_set.tsv"
TOP = 5


@dataclass(frozen=True)
class Row:
    id: str
    lang: str
    kind: str
    earlier: str
    turn: str
    pages: tuple[str, ...]
    fact: str


def load(path: Path = SET) -> list[Row]:
    with path.open(encoding="utf-8") as f:
        return [
            Row(r["id"], r["lang"], r["kind"], r["earlier"], r["turn"], tuple(r["pages"].split(";")), r["fact"])
            for r in csv.DictReader(f, delimiter="\t")
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--index", type=built_index, required=True)
    parser.add_argument("--answers", action="store_true", help="ask the follow-ups of the model instead")
    parser.add_argument("--quoted", action="store_true", help="ask the follow-ups without a model instead")
    parser.add_argument("--set", type=Path, default=SET, help="the set's file (default: bench/followups_set.tsv)")
    parser.add_argument("--drafts", type=Path, help="with --answers: append the drafts here (bench/drafts.py)")
    args = parser.parse_args()
    settings = Settings(vault=args.vault, index_path=args.index, _env_file=None)
    open_index(settings).close()
    ctx = ToolContext(settings=settings, embedder=OnnxEmbedder(E5_DIR, threads=1))
    rows = load(args.set)
    if args.answers:
        with drafts.recording(args.drafts, "warm"):
            answers(ctx, [row for row in rows if row.kind == "follow"])
        return
    if args.quoted:
        quoted(ctx, [row for row in rows if row.kind == "follow"])
        return
    started, cpu = time.monotonic(), time.process_time()
    load_before = os.getloadavg()

    def top(text: str) -> list[str]:
        return [h.path for h in search(ctx.reader(), settings, ctx.embedder, text, "body", limit=TOP).hits]

    tally: dict[tuple[str, str], list[int]] = {}
    print("| id | turn | joined | before: first right page rank | after |")
    print("|---|---|---|---|---|")
    for row in rows:
        searched = asked([row.earlier, row.turn])
        before, after = top(row.turn), top(searched.searched)

        def rank(paths: list[str], row: Row = row) -> int:
            return next((i for i, p in enumerate(paths, 1) if p in row.pages), 0)

        counts = tally.setdefault((row.kind, row.lang), [0] * 7)
        outcome = [1, int(bool(searched.earlier)), rank(before) == 1, rank(after) == 1, rank(before) > 0]
        outcome += [rank(after) > 0, before == after]
        tally[(row.kind, row.lang)] = [a + int(b) for a, b in zip(counts, outcome, strict=True)]
        print(
            f"| {row.id} | {row.turn} | {'yes' if searched.earlier else 'no'} | {rank(before) or '-'} | "
            f"{rank(after) or '-'} |"
        )
    print()
    print(
        "| kind | lang | turns | joined | right page first, before -> after | in top 5, before -> after | "
        "top 5 unchanged |"
    )
    print("|---|---|---|---|---|---|---|")
    for kind in ("follow", "new"):
        total = [0] * 7
        for (k, lang), c in sorted(tally.items()):
            if k != kind:
                continue
            total = [a + b for a, b in zip(total, c, strict=True)]
            print(f"| {kind} | {lang} | {c[0]} | {c[1]} | {c[2]} -> {c[3]} | {c[4]} -> {c[5]} | {c[6]} |")
        print(
            f"| {kind} | all | {total[0]} | {total[1]} | {total[2]} -> {total[3]} | {total[4]} -> {total[5]} | "
            f"{total[6]} |"
        )
    packets(ctx, [row for row in rows if row.kind == "follow"])
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU; load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")


def packets(ctx: ToolContext, rows: list[Row]) -> None:
    """Per follow-up, the fact in the packet's first passage / in any passage, before -> after."""
    budget = budget_tokens(None, ctx.settings.answer.reply_tokens)
    count = ctx.settings.answer.passages

    def holds(packet: Packet, row: Row) -> tuple[bool, bool, bool]:
        texts = [p.text.casefold() for p in packet.passages]
        first_page = bool(packet.passages) and packet.passages[0].path in row.pages
        return bool(texts) and row.fact.casefold() in texts[0], any(row.fact.casefold() in t for t in texts), first_page

    print("\n| id | turn | fact | fact in passage 1, before -> after | in any passage | right page first |")
    print("|---|---|---|---|---|---|")
    totals = [0] * 6
    for row in rows:
        searched = asked([row.earlier, row.turn])
        before = holds(build_packet(ctx, searched.searched, passages=count, budget_tokens=budget), row)
        after = holds(
            build_packet(ctx, searched.searched, passages=count, budget_tokens=budget, turn=searched.turn), row
        )
        totals = [t + int(v) for t, v in zip(totals, (*before, *after), strict=True)]
        marks = ["yes" if v else "no" for v in (*before, *after)]
        print(
            f"| {row.id} | {row.turn} | {row.fact} | {marks[0]} -> {marks[3]} | {marks[1]} -> {marks[4]} | "
            f"{marks[2]} -> {marks[5]} |"
        )
    print(
        f"| all ({len(rows)}) | | | {totals[0]} -> {totals[3]} | {totals[1]} -> {totals[4]} | "
        f"{totals[2]} -> {totals[5]} |"
    )


def quoted_followup(ctx: ToolContext, row: Row) -> tuple[Answer, bool, bool]:
    """A follow-up asked without a model after the quoted answer to its question (what the person read before
    it): the answer, whether it cites a right page first, and whether it holds the fact."""
    first = answer_turn(ctx, None, Turn([{"role": "user", "content": row.earlier}]))
    messages = [
        {"role": "user", "content": row.earlier},
        {"role": "assistant", "content": first.answer},
        {"role": "user", "content": row.turn},
    ]
    answer = answer_turn(ctx, None, Turn(messages))
    page = bool(answer.citations) and answer.citations[0].path in row.pages
    return answer, page, row.fact.casefold() in answer.answer.casefold()


def quoted(ctx: ToolContext, rows: list[Row]) -> None:
    """Each follow-up asked without a model after the pipeline's quoted answer to its question (what the person
    read before it): the right page cited first, and the fact in the follow-up's answer."""
    started, cpu = time.monotonic(), time.process_time()
    load_before = os.getloadavg()
    print("| id | turn | right page first | fact | what a person reads |")
    print("|---|---|---|---|---|")
    totals = [0, 0]
    for row in rows:
        answer, page, fact = quoted_followup(ctx, row)
        totals = [totals[0] + page, totals[1] + fact]
        shown = " ".join(answer.answer.split())[:140].replace("|", "\\|")
        print(f"| {row.id} | {row.turn} | {page} | {fact} | {shown} |", flush=True)
    print(f"| all ({len(rows)}) | | {totals[0]} | {totals[1]} | |")
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU; load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")


def answers(ctx: ToolContext, rows: list[Row]) -> None:
    """Each follow-up asked after its question, through the pipeline, of the small Qwen at temperature 0."""
    started, cpu = time.monotonic(), time.process_time()
    load_before = os.getloadavg()
    with llama_server(ctx=CTX) as url:
        provider = provider_for(ProviderSettings(kind="openai", base_url=url, model=MODEL_ALIAS, num_ctx=CTX), "b")
        answer_turn(ctx, provider, Turn([{"role": "user", "content": rows[0].earlier}]))  # warm
        print("| id | turn | right page first | fact | written | dropped | s | what a person reads |")
        print("|---|---|---|---|---|---|---|---|")
        totals = [0] * 4
        for row in rows:
            drafts.label_of(row.id)
            messages = [
                {"role": "user", "content": row.earlier},
                {"role": "assistant", "content": "(an answer)"},
                {"role": "user", "content": row.turn},
            ]
            began = time.perf_counter()
            answer = answer_turn(ctx, provider, Turn(messages), MODEL_ALIAS)
            seconds = time.perf_counter() - began
            first = bool(answer.citations) and answer.citations[0].path in row.pages
            fact = row.fact.casefold() in answer.answer.casefold()
            totals = [t + int(v) for t, v in zip(totals, (first, fact, answer.answered, answer.dropped), strict=True)]
            shown = " ".join(answer.answer.split())[:140].replace("|", "\\|")
            print(
                f"| {row.id} | {row.turn} | {first} | {fact} | {answer.answered} | {answer.dropped} | "
                f"{seconds:.1f} | {shown} |",
                flush=True,
            )
    print(f"| all ({len(rows)}) | | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} | | |")
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU; load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
