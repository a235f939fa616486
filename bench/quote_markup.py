"""Quotes a person reads, checked for markup cut half-way: every chunk of an index split into the units a quote
is made of (``vault.sentences``, prose units only), counting those with an odd number of ``**``, holding a code
fence (```), or an odd number of backticks. Then each unit as a person is shown it (``links.shown_links``; code
spans, a task's box and a markdown link's brackets left out, as a chat draws them), counting the shapes that
``bench.browser_turns.markup_shown`` flags on a screen: a link cut in half (``[[``, ``]]``, ``[#heading]``, a
``|`` alias half, words in brackets) and a unit opening after a parenthesis it does not hold ("dein Handy)
empfangen …") or ending inside one it opens ("Sekundäre Geräte (z."). What is left should be markup a reader sees
as written (escaped stars, stars or fences inside a code span, "[Your Name]"), printed for reading.

``--save FILE`` keeps each chunk's units as shown (JSON); ``--against FILE`` (one saved by another version of the
code) prints the per-unit difference: how many units read the same, and of those that read differently, whether
the earlier version showed a flagged shape in them or they were a piece of the same sentence as one that did (the
cut ones), or neither (a unit that read right before and reads differently now: listed).

    .venv/bin/python -m bench.quote_markup --index FILE [--show 20] [--save FILE] [--against FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import time
from pathlib import Path

from bench.browser_turns import markup_shown
from sentinel.vault.links import shown_links
from sentinel.vault.sentences import sentence_spans

_CODE_SPAN = re.compile(r"(`+)[^`]+?\1")
# drawn by a chat as no brackets: a markdown link or image to a URL (its label), a task's box
_DRAWN = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)|\[[ xX]\]")
SHAPES = ("[[", "]]", "[#", "|…]", "[…]", "…)", "(…")


def shapes(unit: str) -> list[str]:
    """The cut-link and parenthesis shapes ``unit`` shows a person (code spans are drawn as written: left out)."""
    drawn = _DRAWN.sub(lambda m: m.group(1) or " ", _CODE_SPAN.sub(" ", shown_links(unit)))
    return [m for m in markup_shown(drawn) if m in SHAPES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--show", type=int, default=20, help="how many of the flagged units to print")
    parser.add_argument("--save", type=Path, help="write each chunk's units as shown here (JSON)")
    parser.add_argument("--against", type=Path, help="a --save file of another version: print what reads differently")
    args = parser.parse_args()
    db = sqlite3.connect(f"file:{args.index}?mode=ro", uri=True)
    texts = [str(text) for (text,) in db.execute("SELECT text FROM chunks ORDER BY rowid")]
    started, cpu = time.monotonic(), time.process_time()
    per_chunk = [[s.text for s in sentence_spans(text) if not s.block] for text in texts]
    units = [unit for chunk in per_chunk for unit in chunk]
    wall, used = time.monotonic() - started, time.process_time() - cpu
    bold = [u for u in units if u.count("**") % 2]
    fence = [u for u in units if "```" in u]
    tick = [u for u in units if u.count("`") % 2 and "```" not in u]
    print("| chunks | prose units | odd `**` | holding ``` | odd ` |")
    print("|---|---|---|---|---|")
    print(f"| {len(texts)} | {len(units)} | {len(bold)} | {len(fence)} | {len(tick)} |")
    for unit in (bold + fence + tick)[: args.show]:
        print("  ", repr(unit[:160]))
    flagged = {unit: found for unit in set(units) if (found := shapes(unit))}
    print("\nAs shown to a person (code spans left out), units showing each shape:\n")
    print("| " + " | ".join(f"`{s}`" for s in SHAPES) + " | any |")
    print("|" + "---|" * (len(SHAPES) + 1))
    counts = [sum(s in flagged.get(u, ()) for u in units) for s in SHAPES]
    print("| " + " | ".join(map(str, counts)) + f" | {sum(u in flagged for u in units)} |")
    for unit in [u for u in dict.fromkeys(units) if u in flagged][: args.show]:
        print("  ", " ".join(flagged[unit]), repr(shown_links(unit)[:160]))
    shown = [[shown_links(unit) for unit in chunk] for chunk in per_chunk]
    if args.save:
        args.save.write_text(json.dumps({"units": shown, "flagged": [[bool(shapes(u)) for u in c] for c in per_chunk]}))
    if args.against:
        _compare(json.loads(args.against.read_text()), shown, args.show)
    print(f"\n{wall:.2f} s wall, {used:.2f} s CPU to split; load {os.getloadavg()[0]:.1f}")


def _compare(before: dict[str, list[list[object]]], shown: list[list[str]], show: int) -> None:
    """Per chunk, the units shown before and now: the same; changed where the earlier one showed a cut shape (the
    cut ones) or is a piece of the same sentence as one that did ("B." of "(z. B. dein Handy)"); or changed where
    neither holds (listed: a sentence that read right and reads otherwise)."""
    same = cut = merged = clean = 0
    listed: list[tuple[list[str], list[str]]] = []
    for old_units, flags, new in zip(before["units"], before["flagged"], shown, strict=True):
        old = [str(unit) for unit in old_units]
        same += sum(unit in new for unit in old)
        added = [unit for unit in new if unit not in old]
        was_cut = [unit for unit, flag in zip(old, flags, strict=True) if flag and unit not in new]
        wrong = []
        for unit, flag in zip(old, flags, strict=True):
            if unit in new:
                continue
            if flag:
                cut += 1
            elif any(unit in n and any(c in n for c in was_cut) for n in added):
                merged += 1
            else:
                clean += 1
                wrong.append(unit)
        if wrong:
            listed.append((wrong, added))
    print("\nPer unit against the earlier version:\n")
    print("| read the same | changed: shown cut before | changed: a piece of a cut one | changed: read right before |")
    print("|---|---|---|---|")
    print(f"| {same} | {cut} | {merged} | {clean} |")
    for old, new in listed[:show]:
        print("   before:", [unit[:120] for unit in old], "\n   now:   ", [unit[:120] for unit in new])


if __name__ == "__main__":
    main()
