"""Which questions a naming of a thing the vault never names newly names, read from the index alone (no packet, no
embedding): the names-only reading of bench/unanswered.py's choosing halves (and, with ``--report``, once, its
report halves), and of every browser turns file and bench/answers_set.tsv turn as searched (``--turns``).

A preface ("The vault does not mention X.") opens what the shipped rule lets in, so a naming that newly names no
answerable question prefaces none, by construction; each naming is read beside the shipped one
(``packet.build_packet``: ``unnamed.silenced``, else ``unnamed.unmentioned``). ``--cost`` prints what the dictionary
of ``unheld.common`` costs a process: each language's first lookup, CPU and peak memory, in a fresh process.

    SENTINEL_EVAL_VAULT=DIR PYTHONPATH=src:. .venv/bin/python -m bench.unheld_names --index FILE [--build]
        [--show] [--report] [--turns] [--cost]
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench import retrieval
from bench.unanswered_namings import NAMINGS, SHIPPED_UNHELD
from bench.unanswered_questions import (
    ROOT,
    Question,
    answerable_choosing,
    answerable_reporting,
    browser_unanswerable,
    heldout_unanswerable,
    unanswerable,
    unheld,
)
from sentinel.answer.followup import asked
from sentinel.answer.unnamed import PREFACE, silenced, unnamed
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.settings import Settings
from tests.support.eval_data import eval_vault_path

CANDIDATES = [name for name in NAMINGS if name.startswith("… + with + uncommon word") or "by length" in name]


def _names(db: sqlite3.Connection, text: str) -> dict[str, str]:
    """Per naming, the name the shipped silence or that naming finds in ``text`` ("" none)."""
    said = silenced(db, text)
    return {name: said or unnamed(db, text, **NAMINGS[name]) for name in [SHIPPED_UNHELD, *CANDIDATES]}


def _table(title: str, questions: list[Question], db: sqlite3.Connection, show: bool) -> None:
    rows = [(q, _names(db, asked([q.text]).searched)) for q in questions]
    non = [r for r in rows if not r[0].pages]
    ans = [r for r in rows if r[0].pages]
    shipped_non = sum(bool(n[SHIPPED_UNHELD]) for _, n in non)
    print(f"\n### {title}\n")
    print(f"shipped naming (silence or preface): {shipped_non}/{len(non)} unanswerable named, ", end="")
    print(f"{sum(bool(n[SHIPPED_UNHELD]) for _, n in ans)}/{len(ans)} answerable named\n")
    head = f"unanswerable newly named ({len(non)}) | answerable newly named ({len(ans)})"
    print(f"| naming, beside the shipped one | {head} |")
    print("|---|---|---|")
    for name in CANDIDATES:
        new_non = sum(bool(n[name]) and not n[SHIPPED_UNHELD] for _, n in non)
        new_ans = sum(bool(n[name]) and not n[SHIPPED_UNHELD] for _, n in ans)
        print(f"| {name} | {new_non} | {new_ans} |")
    if show:
        for name in CANDIDATES:
            for q, n in rows:
                if n[name] and not n[SHIPPED_UNHELD]:
                    kind = "answerable" if q.pages else "unanswerable"
                    print(f"- {name}: {kind} {q.set} {q.lang} {q.text!r} -> {n[name]!r}")


def _turns(db: sqlite3.Connection) -> None:
    """Every turn of the browser files, bench/answers_set.tsv and the follow-up sets (each earlier question, each
    follow-up as searched): what each candidate changes."""
    print("\n### every browser turns file, bench/answers_set.tsv and the follow-up sets, as searched\n")
    texts: list[tuple[str, str]] = []
    for path in sorted((ROOT / "bench").glob("browser_turns*.tsv")):
        with path.open(encoding="utf-8") as f:
            chats: dict[str, list[str]] = {}
            for r in csv.DictReader(f, delimiter="\t"):
                turns = chats.setdefault(r["chat"], [])
                turns.append(r["turn"])
                texts.append((f"{path.name} row {r['n']}", asked(turns).searched))
    with (ROOT / "bench" / "answers_set.tsv").open(encoding="utf-8") as f:
        texts += [(f"answers_set {r['id']}", r["question"]) for r in csv.DictReader(f, delimiter="\t")]
    for name in ("followups_set", "followups_platforms", "followups_names"):
        with (ROOT / "bench" / f"{name}.tsv").open(encoding="utf-8") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                turns = [r["earlier"], r["turn"]] if r["kind"] == "follow" else [r["turn"]]
                texts += [(f"{name} {r['id']} earlier", r["earlier"])] if r["earlier"] else []
                texts.append((f"{name} {r['id']}", asked(turns).searched))
    changed = 0
    for where, text in texts:
        names = _names(db, text)
        moved = {name: found for name, found in names.items() if found != names[SHIPPED_UNHELD]}
        if moved:
            changed += 1
            print(f"- {where}: {text!r} shipped {names[SHIPPED_UNHELD]!r} -> {moved}")
    print(f"\n{changed} of {len(texts)} turns changed by any candidate")


_COST = """
import sys, time
from pathlib import Path
from sentinel.answer.unheld import common

def rss():
    return int(next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmRSS")).split()[1])

t, r = time.process_time(), rss()
common("whatsapp", sys.argv[1])  # imports simplemma, loads the language's low-memory dictionary
first, grown = time.process_time() - t, rss() - r
t = time.process_time()
for _ in range(200):
    common("cortafuegos", sys.argv[1])
each = (time.process_time() - t) / 200
print(f"| {sys.argv[1]} | {first:.2f} | {grown / 1024:.1f} | {each * 1e6:.0f} |")
"""


def _cost(db: sqlite3.Connection, questions: list[Question]) -> None:
    print("\n### the dictionary's cost to a process (a fresh process a language; resident memory grown)\n")
    print("| language | first lookup CPU s | resident memory grown MB | a lookup after, µs (3 spellings) |")
    print("|---|---|---|---|")
    for language in ("en", "de", "es", "tr"):
        subprocess.run([sys.executable, "-c", _COST, language], check=True)
    print("\n### ``unmentioned``'s CPU per question, with and without the uncommon word (dictionaries loaded)\n")
    print("| naming | questions | total CPU s | mean ms | max ms |")
    print("|---|---|---|---|---|")
    texts = [asked([q.text]).searched for q in questions]
    without = {k: v for k, v in PREFACE.items() if k not in ("uncommon", "spared", "uncommon_near")}
    for name, settings in (("shipped before (stop 54)", without), ("with the uncommon word (stop 55)", PREFACE)):
        times = []
        for text in texts:
            t = time.process_time()
            unnamed(db, text, **settings)
            times.append(time.process_time() - t)
        print(
            f"| {name} | {len(times)} | {sum(times):.1f} | {1000 * sum(times) / len(times):.1f} | "
            f"{1000 * max(times):.0f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="an index of the eval vault (FTS is enough)")
    parser.add_argument("--build", action="store_true", help="index the eval vault into --index first (no vectors)")
    parser.add_argument("--show", action="store_true", help="each newly named question")
    parser.add_argument("--report", action="store_true", help="the report halves too (once, after choosing)")
    parser.add_argument("--turns", action="store_true", help="every browser turns file and answers_set turn")
    parser.add_argument("--cost", action="store_true", help="the dictionary's CPU and memory per language")
    parser.add_argument("--only", default="", help="only the candidates whose name holds this text")
    args = parser.parse_args()
    CANDIDATES[:] = [name for name in CANDIDATES if args.only in name]
    if not args.build and not args.index.is_file():
        parser.error(f"no index at {args.index}: give one, or --build to index the eval vault into it")
    settings = Settings(vault=eval_vault_path(), index_path=args.index, _env_file=None)
    db = open_index(settings)
    if args.build:
        sync(settings, db)
    present = retrieval.vault_pages(db)
    started, cpu, load = time.monotonic(), time.process_time(), os.getloadavg()[0]
    choosing = (
        unanswerable("choose")
        + browser_unanswerable()
        + [q for q in unheld() if not q.pages]
        + answerable_choosing(present)
    )
    _table("choosing halves and bench/unheld_set.tsv", choosing, db, args.show)
    if args.turns:
        _turns(db)
    if args.report:
        reporting = unanswerable("report") + heldout_unanswerable() + answerable_reporting(present)
        _table("report halves (read once)", reporting, db, args.show)
    wall, used = time.monotonic() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU, peak RSS {peak:.0f} MB; load {load:.1f} -> {os.getloadavg()[0]:.1f}")
    if args.cost:
        _cost(db, choosing)


if __name__ == "__main__":
    main()
