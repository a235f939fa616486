"""Quotes a person reads, checked for markup cut half-way: every chunk of an index split into the units a quote
is made of (``vault.sentences``, prose units only), counting those with an odd number of ``**``, holding a code
fence (```), or an odd number of backticks. What is left should be markup a reader sees as written (escaped
stars, stars or fences inside a code span), printed for reading.

    .venv/bin/python -m bench.quote_markup --index FILE [--show 20]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import time
from pathlib import Path

from sentinel.vault.sentences import sentence_spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--show", type=int, default=20, help="how many of the flagged units to print")
    args = parser.parse_args()
    db = sqlite3.connect(f"file:{args.index}?mode=ro", uri=True)
    texts = [str(text) for (text,) in db.execute("SELECT text FROM chunks")]
    started, cpu = time.monotonic(), time.process_time()
    units = [s.text for text in texts for s in sentence_spans(text) if not s.block]
    wall, used = time.monotonic() - started, time.process_time() - cpu
    bold = [u for u in units if u.count("**") % 2]
    fence = [u for u in units if "```" in u]
    tick = [u for u in units if u.count("`") % 2 and "```" not in u]
    print("| chunks | prose units | odd `**` | holding ``` | odd ` |")
    print("|---|---|---|---|---|")
    print(f"| {len(texts)} | {len(units)} | {len(bold)} | {len(fence)} | {len(tick)} |")
    for unit in (bold + fence + tick)[: args.show]:
        print("  ", repr(unit[:160]))
    print(f"\n{wall:.2f} s wall, {used:.2f} s CPU to split; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
