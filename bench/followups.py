"""Follow-ups, measured: does the search for a turn that continues the question before it find that question's
page, and is a new question after an answer left alone?

bench/followups_set.tsv (committed before the rule; it chose nothing): 16 follow-ups, 4 per language, each after
the question it continues, and 12 new questions after an answer. For each, the body rung (the search a vault
answer's packet is built from) is run twice: on the turn alone (before) and on what ``answer.followup`` searches
(after). Printed per kind and language: how many turns the rule joined, the right page first, the right page in
the top 5; for the new questions also how many top-5 lists are unchanged.

    .venv/bin/python -m bench.followups --vault DIR --index FILE   # an index of the eval vault with vectors
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from dataclasses import dataclass
from pathlib import Path

from sentinel.answer.followup import asked
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.search.ladder import search
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from tests.support.embedder import E5_DIR

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


def load(path: Path = SET) -> list[Row]:
    with path.open(encoding="utf-8") as f:
        return [
            Row(r["id"], r["lang"], r["kind"], r["earlier"], r["turn"], tuple(r["pages"].split(";")))
            for r in csv.DictReader(f, delimiter="\t")
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--index", type=Path, required=True)
    args = parser.parse_args()
    settings = Settings(vault=args.vault, index_path=args.index, _env_file=None)
    open_index(settings).close()
    ctx = ToolContext(settings=settings, embedder=OnnxEmbedder(E5_DIR, threads=1))
    started, cpu = time.monotonic(), time.process_time()
    load_before = os.getloadavg()

    def top(text: str) -> list[str]:
        return [h.path for h in search(ctx.reader(), settings, ctx.embedder, text, "body", limit=TOP).hits]

    tally: dict[tuple[str, str], list[int]] = {}
    print("| id | turn | joined | before: first right page rank | after |")
    print("|---|---|---|---|---|")
    for row in load():
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
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU; load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
