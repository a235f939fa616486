"""What bringing the held postings current costs after pages are edited: patched from the change log, or read whole.

    python bench/held_refresh.py --pages 100000 [--edits 1 --edits 10 --edits 100]

On a copy of bench/search_latency.py's cached synthetic index (SQLite's backup from a read-only connection) and a
hard-linked copy of its vault (an edited page is written as a new file, never through the link), holds the
postings the bench's queries ask for, then for each ``--edits`` count rewrites that many pages (their words
shuffled, one added), syncs, and times ``postings.read_held`` from the old copy: the patch
(``sentinel.search.held_patch``) against reading every held word again, CPU (this thread's) and wall, and
whether the two copies are the same (every held word's ids and counts, the token counts, N and avgdl).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import lexical, postings
from sentinel.search.view import chunk_count, index_file
from sentinel.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import CACHE, _queries
from tables import print_value_table


def _copy(pages: int, into: Path) -> Settings:
    source = sqlite3.connect(f"file:{CACHE / f'synth-{pages}.db'}?mode=ro", uri=True)
    target = sqlite3.connect(into / "index.db")
    source.backup(target)
    source.close()
    target.close()
    shutil.copytree(CACHE / f"synth-{pages}", into / "vault", copy_function=os.link)
    return Settings(vault=into / "vault", index_path=into / "index.db", _env_file=None)


def _rewrite(settings: Settings, count: int, rng: random.Random) -> None:
    files = sorted(p for p in settings.vault.rglob("*.md"))
    for path in rng.sample(files, count):
        words = path.read_text().split(" ")
        rng.shuffle(words)
        path.unlink()  # a hard link to the cached vault: a new file, not a write through the link
        path.write_text(" ".join(words) + " refreshed\n")


def _timed(path: str, asked: list[str], old: postings.Held | None) -> tuple[postings.Held, float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    held = postings.read_held(path, asked, old)
    return held, time.thread_time() - cpu, time.perf_counter() - wall


def _same(a: postings.Held, b: postings.Held) -> bool:
    size = max(len(a.tokens), len(b.tokens))
    tokens = [np.pad(h.tokens.astype(np.int64), (0, size - len(h.tokens))) for h in (a, b)]
    return (
        (a.rows, a.average) == (b.rows, b.average)
        and np.array_equal(*tokens)
        and a.terms.keys() == b.terms.keys()
        and all(np.array_equal(a.terms[w][0], b.terms[w][0]) for w in a.terms)
        and all(np.array_equal(a.terms[w][1], b.terms[w][1]) for w in a.terms)
    )


def measure(pages: int, edits: list[int]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(dir=CACHE.parent) as scratch:
        settings = _copy(pages, Path(scratch))
        db = open_index(settings)
        chunks = chunk_count(db)
        for query in _queries(settings, 60):
            lexical.lexical_chunks(db, lexical.lexical_terms(db, query, chunks), 50)
        postings.settle()
        held = postings.held_for(db, [])
        assert held is not None, "no postings held: the queries asked for no common word"
        path, asked = index_file(db), [*held.terms, *held.passed]
        rows.append(
            (f"{pages} pages: chunks; words held; MB held", f"{chunks}; {len(held.terms)}; {held.nbytes() / 1e6:.0f}")
        )
        rng = random.Random(5)
        for count in edits:
            _rewrite(settings, count, rng)
            sync(settings, db)
            postings.READS.clear()
            patched, patch_cpu, patch_wall = _timed(path, asked, held)
            how = "patched" if postings.READS["patched"] else "declined, read whole"
            whole, whole_cpu, whole_wall = _timed(path, asked, None)
            rows += [
                (f"  {count} pages edited: {how}, CPU; wall s", f"{patch_cpu:.2f}; {patch_wall:.2f}"),
                (f"  {count} pages edited: read whole, CPU; wall s", f"{whole_cpu:.2f}; {whole_wall:.2f}"),
                (f"  {count} pages edited: the two copies the same", str(_same(patched, whole))),
            ]
            held = whole
        rows.append((f"{pages} pages: load average (1 min), after", f"{os.getloadavg()[0]:.1f}"))
        db.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--edits", type=int, action="append")
    args = parser.parse_args()
    print_value_table("held postings brought current after edits", measure(args.pages, args.edits or [1, 10, 100]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
