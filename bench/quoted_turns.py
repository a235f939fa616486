"""The browser check's turns replayed through the quoted path (no model): what a person reads when every
sentence a model would write is dropped, and what the model is shown (the same narrowed passages).

Each turns file's rows are typed as the browser's chats type them (consecutive rows with one ``chat`` label are one
chat; a follow-up is asked after the quoted answer to the turn before it, as ``bench/followups.py --quoted`` asks,
and a save is saved, as ``bench/recalls.py`` saves) over a copy of the eval vault and index made in ``--scratch``
first (nothing shared is written). Per row it prints: the row's page cited, its fact found in what a person reads,
how many sentences the quote shows; ``--json FILE`` saves every row's answer, citations and quotes so two runs can
be diffed (``--diff BEFORE AFTER``: each row whose text changed, with both texts). ``--answers-set`` asks
bench/answers_set.tsv's questions instead (one a chat; the fact: the set's strings, as bench/answers.py holds them),
``--followups-set`` bench/followups_set.tsv's follow-ups after their questions (as ``bench/followups.py --quoted``).

    .venv/bin/python -m bench.quoted_turns --scratch /work/scratch/NAME --json before.json bench/browser_turns.tsv
    .venv/bin/python -m bench.quoted_turns --diff before.json after.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bench import followups
from bench.answers import holds, load, synced_context
from bench.browser_turns import load_turns
from sentinel.answer import Turn, answer_turn
from sentinel.answer.result import Answer
from sentinel.tools.context import ToolContext
from sentinel.vault.sentences import sentence_spans
from tests.support.eval_data import eval_vault_path

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "bench" / "answers_set.tsv"


def sentences_shown(answer: Answer) -> int:
    """How many sentences the quotes of ``answer`` show (a table row counts as one)."""
    return sum(len(sentence_spans(citation.quote)) for citation in answer.citations)


def row_of(label: str, asked: str, answer: Answer, page: bool, fact: bool) -> dict[str, Any]:
    return {
        "row": label,
        "asked": asked,
        "page": page,
        "fact": fact,
        "sentences": sentences_shown(answer),
        "answer": answer.answer,
        "cited": [{"path": c.path, "heading": c.heading, "quote": c.quote} for c in answer.citations],
    }


def turns_rows(ctx: ToolContext, path: Path) -> list[dict[str, Any]]:
    """Every row of one turns file, each chat's turns after the quoted answers before them."""
    rows: list[dict[str, Any]] = []
    messages: list[dict[str, str]] = []
    chat = ""
    for turn in load_turns(path):
        if turn.chat != chat:
            messages, chat = [], turn.chat
        messages.append({"role": "user", "content": turn.text})
        answer = answer_turn(ctx, None, Turn(list(messages), chat_id=f"{path.stem}-{turn.chat}"))
        messages.append({"role": "assistant", "content": answer.answer})
        if turn.is_save:
            page, fact = bool(answer.saved), turn.fact_right(f"{answer.saved} {answer.answer}")
        else:
            page, fact = turn.cites_page([c.path for c in answer.citations]), turn.fact_right(answer.answer)
        rows.append(
            row_of(f"{path.stem.removeprefix('browser_turns') or '_first'}:{turn.n}", turn.text, answer, page, fact)
        )
    return rows


def set_rows(ctx: ToolContext, path: Path) -> list[dict[str, Any]]:
    """Each question of an answers set asked in a chat of its own."""
    rows = []
    for question in load(path):
        answer = answer_turn(ctx, None, Turn([{"role": "user", "content": question.text}]))
        page = bool(answer.citations) and any(c.path in question.pages for c in answer.citations)
        rows.append(row_of(question.id, question.text, answer, page, holds(answer.answer, question.facts)))
    return rows


def followup_rows(ctx: ToolContext) -> list[dict[str, Any]]:
    """Each follow-up of bench/followups_set.tsv after the quoted answer to its question (``followups.quoted``'s
    chats), its whole text kept."""
    rows = []
    for row in [row for row in followups.load() if row.kind == "follow"]:
        answer, page, fact = followups.quoted_followup(ctx, row)
        rows.append(row_of(row.id, row.turn, answer, page, fact))
    return rows


def printed(rows: list[dict[str, Any]]) -> None:
    print("| row | asked | right page cited | fact in the quote | sentences quoted | first quote |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        first = " ".join(row["cited"][0]["quote"].split())[:90] if row["cited"] else " ".join(row["answer"].split())
        shown = first[:90].replace("|", "\\|")
        print(f"| {row['row']} | {row['asked'][:60]} | {row['page']} | {row['fact']} | {row['sentences']} | {shown} |")
    print(
        f"| all ({len(rows)}) | | {sum(r['page'] for r in rows)} | {sum(r['fact'] for r in rows)} | "
        f"{sum(r['sentences'] for r in rows)} | |"
    )


def diff(before: Path, after: Path) -> int:
    """Each row whose answer changed between two ``--json`` files, with both texts."""
    old = {row["row"]: row for row in json.loads(before.read_text(encoding="utf-8"))}
    changed = 0
    for row in json.loads(after.read_text(encoding="utf-8")):
        was = old.get(row["row"])
        if was is None or was["answer"] == row["answer"]:
            continue
        changed += 1
        print(f"## {row['row']}: {row['asked']}")
        print(f"page {was['page']} -> {row['page']}, fact {was['fact']} -> {row['fact']}")
        print(f"--- before\n{was['answer']}\n--- after\n{row['answer']}\n")
    print(f"{changed} of {len(old)} answers changed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="*", help="turns files (bench/browser_turns*.tsv)")
    parser.add_argument("--scratch", type=Path, help="a folder of yours: the vault and index copy")
    parser.add_argument("--index", type=Path, default=ROOT / ".cache" / "bench" / "eval-index.db")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--answers-set", action="store_true", help=f"ask {SET.name}'s questions instead")
    parser.add_argument("--followups-set", action="store_true", help="ask bench/followups_set.tsv's follow-ups")
    parser.add_argument("--json", type=Path, help="save every row here")
    parser.add_argument("--diff", type=Path, nargs=2, metavar=("BEFORE", "AFTER"), help="compare two --json files")
    args = parser.parse_args(argv)
    if args.diff:
        return diff(*args.diff)
    if args.scratch is None or not (args.files or args.answers_set or args.followups_set):
        parser.error("give --scratch and turns files (or --answers-set, --followups-set)")
    vault, index = args.scratch / "vault", args.scratch / "eval-index.db"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(eval_vault_path(), vault)
    shutil.copy2(args.index, index)
    started, cpu, load_before = time.monotonic(), time.process_time(), os.getloadavg()[0]
    ctx = synced_context(vault, index, args.embed_model)
    if args.answers_set:
        rows = set_rows(ctx, SET)
    elif args.followups_set:
        rows = followup_rows(ctx)
    else:
        rows = [row for path in args.files for row in turns_rows(ctx, path)]
    printed(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU; load {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
