"""Tool calling with a small local model, measured end to end: a fixed set of vault questions through the real
Open WebUI's API, to the API's model gateway, to the real small Qwen on llama.cpp (``--jinja``).

Per turn it reads what reached the tool API (the API's one log line per tool call) and how the gateway got each
call (its ``sentinel_pool_tool_answers_total`` counter: ``native`` from llama.cpp's own parser, ``constrained``
sampled under the gateway's schema of the offered calls, ``repaired`` by the gateway from text). It prints, per
model and path, the share of turns with a valid tool call (one the tool API accepted), with the right tool (the
question's expected one, first), and answers citing a vault page.
The "native" row counts only turns whose calls llama.cpp parsed itself: what a client talking to llama.cpp
directly would have got; "gateway" counts every turn, repaired calls included.

    .venv/bin/python -m bench.toolcalls            # needs `make llm` and .venv-owui (`make openwebui`)
    .venv/bin/python -m bench.toolcalls --free     # the gateway leaves the first answer unconstrained

Timings are not its business; on a loaded machine one turn takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx

from sentinel.keys import Scope, create_key
from tests.openwebui.servers import Server, sentinel_in_open_webui
from tests.openwebui.session import chat, setup_sentinel
from tests.support.llama import MODEL_ALIAS

VAULT = {
    "notes/Growth queue.md": "# Growth queue\nThe growth queue lists the names that links reach for but no page "
    "defines yet, ranked by how many pages reach for them.\n",
    "notes/Obsidian Sync.md": "# Obsidian Sync\nObsidian Sync costs 4 dollars a month billed yearly and keeps "
    "vaults in step across devices with end-to-end encryption.\n",
    "notes/Backups.md": "# Backups\nThe vault is backed up every night at 02:00 to the NAS with restic; "
    "snapshots are kept for 30 days.\n",
    "notes/Garden.md": "# Garden\nThe tomatoes are watered every second morning; the basil only when the soil "
    "is dry.\n",
    "notes/Reading list.md": "# Reading list\nNext up: 'The Pragmatic Programmer', then 'Designing Data-Intensive "
    "Applications'.\n",
    "notes/Wifi.md": "# Wifi\nThe guest network is called 'garden-guest'; its password is on the fridge.\n",
}
# (question, tools that are a right first call, the page holding the answer)
QUESTIONS = [
    ("What does my vault say about the growth queue?", {"search"}, "notes/Growth queue.md"),
    ("How much does Obsidian Sync cost according to my notes?", {"search"}, "notes/Obsidian Sync.md"),
    ("When is my vault backed up, and where to?", {"search"}, "notes/Backups.md"),
    ("How often do I water the tomatoes?", {"search"}, "notes/Garden.md"),
    ("Which book is next on my reading list?", {"search"}, "notes/Reading list.md"),
    ("What is the guest wifi network called?", {"search"}, "notes/Wifi.md"),
    ("Open the note notes/Backups.md and tell me how long snapshots are kept.", {"read", "search"}, "notes/Backups.md"),
    ("List the pages in my notes folder.", {"listing"}, ""),
]
# Each model answer is bounded as a chat client would: a 0.5B model left unbounded can ramble for thousands of
# tokens (measured here: 558 and counting after one tool result), minutes each on a shared CPU.
MAX_TOKENS = 300
_DETAILS = re.compile(r"<details.*?</details>", re.DOTALL)  # Open WebUI's folded tool calls and results


@dataclass
class Turn:
    question: str
    tools: list[str]  # what reached the tool API, in order
    valid: bool
    right: bool
    cites: bool
    path: str  # native, constrained, repaired, mixed, none


def _metric_counts(api: Server, key: str) -> dict[str, float]:
    text = httpx.get(f"{api.url}/metrics", headers={"Authorization": f"Bearer {key}"}, timeout=30).text
    counts: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("sentinel_pool_tool_answers_total{"):
            outcome = line.split('outcome="', 1)[1].split('"', 1)[0]
            counts[outcome] = counts.get(outcome, 0.0) + float(line.rsplit(" ", 1)[1])
    return counts


def _tool_lines(log: Path, skip: int) -> tuple[list[dict[str, object]], int]:
    lines = log.read_text().splitlines()
    calls = [json.loads(line) for line in lines[skip:] if line.startswith("{") and '"message": "tool"' in line]
    return calls, len(lines)


def _cites(answer: str, page: str) -> bool:
    text = _DETAILS.sub("", answer)
    pages = [page] if page else list(VAULT)
    return any(p in text or p.removesuffix(".md") in text or f"[[{Path(p).stem}]]" in text for p in pages)


def run(turn_timeout_s: float, questions: int) -> list[Turn]:
    turns: list[Turn] = []
    with tempfile.TemporaryDirectory(prefix="bench-toolcalls-") as tmp, ExitStack() as running:
        work = Path(tmp)
        for path, text in VAULT.items():
            (work / "vault" / path).parent.mkdir(parents=True, exist_ok=True)
            (work / "vault" / path).write_text(text)
        _, key = create_key(work / "keys.json", Scope.WRITE, label="bench")
        up = running.enter_context(sentinel_in_open_webui(work, key))
        owui, api, log = up.owui, up.api, up.api_log
        setup_sentinel(owui, api.url, MODEL_ALIAS, key)
        _, seen = _tool_lines(log, 0)
        for question, right_tools, page in QUESTIONS[:questions]:
            before = _metric_counts(api, key)
            _, message = chat(owui, question, timeout_s=turn_timeout_s, params={"max_tokens": MAX_TOKENS})
            after = _metric_counts(api, key)
            calls, seen = _tool_lines(log, seen)
            delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
            ways = [way for way in ("native", "constrained", "repaired") if delta.get(way, 0.0) > 0]
            path = ways[0] if len(ways) == 1 else "mixed" if ways else "none"
            tools = [str(call["tool"]) for call in calls]
            valid = any(call["marker"] != "[RETRY]" for call in calls)
            turn = Turn(
                question, tools, valid, bool(tools) and tools[0] in right_tools, _cites(message["content"], page), path
            )
            turns.append(turn)
            print(
                f"  {path:8} tools={tools} valid={valid} right={turn.right} cites={turn.cites}  {question}", flush=True
            )
    return turns


def _share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.0f}%)" if total else "-"


def print_table(turns: list[Turn]) -> None:
    total = len(turns)
    native = [t for t in turns if t.path == "native"]
    print("\n| model | path | turns | valid tool call | right tool | answer cites a page |\n|---|---|---|---|---|---|")
    rows = [("native (llama.cpp --jinja)", native), ("gateway (native + constrained + repaired)", turns)]
    for name, chosen in rows:
        valid = sum(t.valid for t in chosen)
        right = sum(t.right for t in chosen)
        cites = sum(t.cites for t in chosen)
        shares = " | ".join(_share(count, total) for count in (valid, right, cites))
        print(f"| {MODEL_ALIAS} | {name} | {total} | {shares} |")
    for way in ("constrained", "repaired", "mixed"):
        print(f"\nturns whose calls came {way}: {sum(t.path == way for t in turns)} of {total}", end="")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turn-timeout", type=float, default=1800, help="seconds one chat turn may take")
    parser.add_argument("--questions", type=int, default=len(QUESTIONS), help="the first N questions only")
    parser.add_argument(
        "--free", action="store_true", help="the gateway does not constrain a turn's first answer (the 'before')"
    )
    args = parser.parse_args()
    if args.free:  # the API inherits the environment
        os.environ["SENTINEL_POOL__CONSTRAIN_FIRST_CALL"] = "false"
    print_table(run(args.turn_timeout, args.questions))


if __name__ == "__main__":
    main()
