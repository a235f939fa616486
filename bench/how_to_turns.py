"""How-to questions answered by the small Qwen: whether a written answer gives a step, and where the pipeline
quotes the passage's steps because the kept sentences gave none (``pipeline._steps_not_written``).

Asked through ``answer_turn`` with the small Qwen (llama.cpp, as bench/answers.py), over a copy of the eval vault
and index made in ``--scratch`` first. Which turns: of the turns files given, every chat holding a row that asks
how to do something (``packet.asks_how_to`` of what the turn asks, ``followup.what_is_asked``), its rows typed in
order up to its last such row, each after the model's own answer to the row before (as the browser types them);
``--answers-set``: bench/answers_set.tsv's how-to questions, one a chat; ``--followups-set``:
bench/followups_set.tsv's how-to follow-ups after the model's answer to their question. Rows that ask no how are
asked only as a chat's earlier turns and are not counted (``--whole``: every row of those chats is asked and counted,
so a later turn reading a changed answer shows its change too). Per how-to row it prints: the row's page cited, its fact
in what a person reads, whether the answer gives a step of the cited passage's steps (the model's sentence, or
the steps quoted), whether the steps were quoted, and the answer. ``--without`` answers as before the rule (the
steps never quoted: a bench-only switch), so two runs compare text for text (``bench/quoted_turns.py --diff``);
``--drafts FILE`` captures the drafts (bench/drafts.py).

    .venv/bin/python -m bench.how_to_turns --scratch /work/scratch/NAME --json after.json bench/browser_turns*.tsv
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bench import drafts, followups
from bench.answers import SET, load, synced_context
from bench.browser_turns import load_turns
from bench.quoted_turns import row_of
from sentinel.answer import Turn, answer_turn, pipeline
from sentinel.answer.followup import asked, what_is_asked
from sentinel.answer.packet import Passage, asks_how_to
from sentinel.answer.quotes import procedure
from sentinel.providers import provider_for
from sentinel.settings import ProviderSettings
from tests.support.eval_data import eval_vault_path
from tests.support.llama import MODEL_ALIAS, llama_server

ROOT = Path(__file__).resolve().parents[1]
CTX = 4096
STEPS_NOTE = "the written sentences gave no step of how to"
_STEP_LINE = re.compile(r"^[ \t>]*\d+[.)][ \t]+(.+)$", re.MULTILINE)
_MARK = re.compile(r"\s*\[\d+\]\s*")


def how_to(turns: list[str]) -> bool:
    """Whether the last of a chat's ``turns`` asks how to do something, as the pipeline reads it."""
    found = asked(turns)
    return asks_how_to(what_is_asked(found.searched, found.turn if found.earlier else ""))


def chats(path: Path, whole: bool = False) -> list[list[Any]]:
    """Each chat of a turns file holding a how-to row, its rows up to the last such row (``whole``: all of them)."""
    grouped: list[list[Any]] = []
    chat = None
    for turn in load_turns(path):
        if turn.chat != chat:
            grouped.append([])
            chat = turn.chat
        grouped[-1].append(turn)
    out = []
    for rows in grouped:
        marks = [how_to([r.text for r in rows[: i + 1]]) for i in range(len(rows))]
        if any(marks):
            out.append(rows if whole else rows[: max(i for i, m in enumerate(marks) if m) + 1])
    return out


def gives_a_step(text: str, written: bool, cited: list[dict[str, str]]) -> bool:
    """Whether what a person reads (``text``) gives a numbered step of a passage it cites (``cited``: each one's
    path, heading and text): the step shown as the page writes it, or a written sentence restating it
    (``quotes.procedure``, the rule's own reading)."""
    for citation in cited:
        if any(step.strip()[:40] in text for step in _STEP_LINE.findall(citation["quote"]) if step.strip()):
            return True
    if not written:
        return False
    sentences = [s for s in _MARK.split(text) if s.strip() and not s.lstrip().startswith(">")]
    passages = [Passage(1, c["path"], "", c["heading"], "", c["quote"]) for c in cited]
    return any(procedure(passage, sentences, "").written for passage in passages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="*", help="turns files (bench/browser_turns*.tsv)")
    parser.add_argument("--scratch", type=Path, required=True, help="a folder of yours: the vault and index copy")
    parser.add_argument("--index", type=Path, default=ROOT / ".cache" / "bench" / "eval-index.db")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--answers-set", action="store_true")
    parser.add_argument("--followups-set", action="store_true")
    parser.add_argument("--whole", action="store_true", help="every row of those chats, how-to or not, counted")
    parser.add_argument("--without", action="store_true", help="never quote the steps (as before the rule)")
    parser.add_argument("--json", type=Path, help="save every how-to row here")
    parser.add_argument("--drafts", type=Path, help="append the drafts and packets here (bench/drafts.py)")
    args = parser.parse_args(argv)
    if not (args.files or args.answers_set or args.followups_set):
        parser.error("give turns files (bench/browser_turns*.tsv), or --answers-set or --followups-set")
    if missing := [str(path) for path in args.files if not path.is_file()]:
        parser.error(f"no such turns file: {', '.join(missing)}")
    if args.without:
        pipeline._steps_not_written = lambda *_: None  # type: ignore[assignment]
    planned: list[tuple[str, list[tuple[str, str, Any]]]] = []  # (chat, [(label, text, row)])
    for path in args.files:
        tag = path.stem.removeprefix("browser_turns") or "_first"
        planned += [
            (f"{tag}-{rows[0].chat}", [(f"{tag}:{r.n}", r.text, r) for r in rows]) for rows in chats(path, args.whole)
        ]
    if args.answers_set:
        planned += [(q.id, [(q.id, q.text, q)]) for q in load(SET) if asks_how_to(q.text)]
    if args.followups_set:
        for row in followups.load():
            if row.kind == "follow" and how_to([row.earlier, row.turn]):
                planned.append((row.id, [(f"{row.id}:asked", row.earlier, None), (row.id, row.turn, row)]))
    vault, index = args.scratch / "vault", args.scratch / "eval-index.db"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(eval_vault_path(), vault)
    shutil.copy2(args.index, index)
    ctx = synced_context(vault, index, args.embed_model)
    started, cpu, load_before = time.monotonic(), time.process_time(), os.getloadavg()[0]
    print(f"{sum(len(turns) for _, turns in planned)} turns in {len(planned)} chats; the model: {MODEL_ALIAS}")
    saved: list[dict[str, Any]] = []
    with llama_server(ctx=CTX) as url, drafts.recording(args.drafts, "warm"):
        provider = provider_for(ProviderSettings(kind="openai", base_url=url, model=MODEL_ALIAS, num_ctx=CTX), "bench")
        for chat, turns in planned:
            messages: list[dict[str, str]] = []
            for label, text, row in turns:
                messages.append({"role": "user", "content": text})
                drafts.label_of(label)
                answer = answer_turn(ctx, provider, Turn(list(messages), chat_id=chat), MODEL_ALIAS)
                messages.append({"role": "assistant", "content": answer.answer})
                asks_how = how_to([m["content"] for m in messages if m["role"] == "user"])
                if row is None or not (asks_how or args.whole):
                    continue
                paths = [c.path for c in answer.citations]
                if hasattr(row, "cites_page"):
                    page, fact = row.cites_page(paths), row.fact_right(answer.answer)
                elif hasattr(row, "facts"):
                    page, fact = (
                        any(p in row.pages for p in paths),
                        any(f.casefold() in answer.answer.casefold() for f in row.facts),
                    )
                else:
                    page, fact = bool(paths) and paths[0] in row.pages, row.fact.casefold() in answer.answer.casefold()
                quoted = any(note.startswith(STEPS_NOTE) for note in answer.notes)
                found = row_of(label, text, answer, page, fact) | {
                    "written": answer.answered,
                    "steps_quoted": quoted,
                    "how_to": asks_how,
                }
                found["step"] = gives_a_step(answer.answer, answer.answered, found["cited"])
                saved.append(found)
                shown = " ".join(answer.answer.split())
                print(
                    f"{label}: how_to={asks_how} page={page} fact={fact} written={answer.answered} "
                    f"step={found['step']} steps_quoted={quoted}\n  asked: {text}\n  reads: {shown}",
                    flush=True,
                )
    print(
        f"rows counted {len(saved)} (how-to {sum(r['how_to'] for r in saved)}): "
        f"page {sum(r['page'] for r in saved)}, fact {sum(r['fact'] for r in saved)}, "
        f"written {sum(r['written'] for r in saved)}, a step given {sum(r['step'] for r in saved)}, "
        f"steps quoted by the rule {sum(r['steps_quoted'] for r in saved)}"
    )
    if args.json:
        args.json.write_text(json.dumps(saved, ensure_ascii=False, indent=1), encoding="utf-8")
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"{wall:.1f} s wall, {used:.1f} s CPU (this process); load {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
