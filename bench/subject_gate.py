"""The subject gate's yield floor without a model: what ``gates.subject`` would drop if the model copied sentences.

For every question that asks for a number (``gates.quantity.asks_for_a_number``) in bench/answers_set.tsv and the
vault turns of bench/browser_turns.tsv and browser_turns_more.tsv (each asked alone: a follow-up's own words ask
for no number), the packet is built as the pipeline builds it; each sentence of each passage that gives what is
asked is taken as the model's sentence citing that passage (its links as the page shows them), and the gate's
``off_subject`` decides. Printed: the sentences it would drop or keep, split by whether they hold the question's
fact (answers_set: its fact strings; browser turns: any one of its fact patterns), and with ``--show`` each
sentence. A fact-holding sentence dropped is yield lost, unless it is about something else that happens to give
the same number (read them). The sets chose nothing here: the gate has no threshold.

    SENTINEL_EVAL_VAULT=DIR PYTHONPATH=src:. .venv/bin/python -m bench.subject_gate --index COPY [--show]
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench.answers import SET, load
from bench.browser_turns import TURNS_FILE, load_turns
from bench.built_index import built_index
from sentinel.answer.packet import build_packet
from sentinel.answer.pipeline import budget_tokens
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.gates import quantity
from sentinel.gates.subject import off_subject, siblings
from sentinel.gates.support import CitedSentence
from sentinel.index.db import open_index
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.vault.links import text_without_link_markup
from tests.support.eval_data import eval_vault_path

ROOT = Path(__file__).resolve().parents[1]
E5_DIR = ROOT / "models" / "multilingual-e5-small"
Asked = tuple[str, str, Callable[[str], bool]]  # id, question, whether a sentence holds its fact


def questions() -> list[Asked]:
    found: list[Asked] = []
    for q in load(SET):
        found.append((q.id, q.text, lambda s, facts=q.facts: any(f.casefold() in s.casefold() for f in facts)))
    # browser_turns_third, _fourth, _fifth and _sixth are held out: never read here
    for path in (TURNS_FILE, TURNS_FILE.with_name("browser_turns_more.tsv")):
        for turn in load_turns(path):
            if not turn.is_save and not turn.unanswerable:
                right = turn.facts
                found.append((f"{path.stem}:{turn.n}", turn.text, lambda s, f=right: any(p.search(s) for p in f)))
    return [q for q in found if quantity.asks_for_a_number(q[1])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--index", type=built_index, required=True, help="a copy of an index of the eval vault with vectors"
    )
    parser.add_argument("--show", action="store_true", help="every sentence and what the gate decided")
    args = parser.parse_args()
    settings = Settings(vault=eval_vault_path(), index_path=args.index, _env_file=None)
    open_index(settings).close()
    ctx = ToolContext(settings=settings, embedder=OnnxEmbedder(E5_DIR, threads=1))
    budget = budget_tokens(None, settings.answer.reply_tokens)
    started, cpu, load_at = time.monotonic(), time.process_time(), os.getloadavg()[0]
    tally: Counter[str] = Counter()
    asked = questions()
    for qid, text, right in asked:
        packet = build_packet(ctx, text, passages=settings.answer.passages, budget_tokens=budget)
        for number, evidence in packet.by_number().items():
            for sentence in siblings(evidence, text):
                shown = " ".join(text_without_link_markup(sentence).split())
                dropped = off_subject(CitedSentence(shown, number), evidence, text, text)
                key = f"{'fact' if right(shown) else 'other'}, {'dropped' if dropped else 'kept'}"
                tally[key] += 1
                if args.show or dropped:
                    print(f"- {qid} [{number}] {key}: {shown[:150]}")
    print(f"\n{len(asked)} questions asking for a number; sentences giving one, as the model's:\n")
    print("| sentence | kept | dropped |\n|---|---|---|")
    for kind in ("fact", "other"):
        print(f"| holds the fact: {kind == 'fact'} | {tally[f'{kind}, kept']} | {tally[f'{kind}, dropped']} |")
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU; load {load_at:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
