"""Edit-to-searchable: how long after an editor saves a page it is found by wording and by meaning.

    .venv/bin/python bench/freshness.py                      # the eval vault (438 pages), in-process e5
    .venv/bin/python bench/freshness.py --pages 10000        # a synthetic vault (bench/synth_vault.py)
    .venv/bin/python bench/freshness.py --embedder-url http://127.0.0.1:8001   # through the embedder service

The real watcher (sentinel.index.watch, what the API runs) watches a copy of the vault. Each edit appends a
sentence with a fresh made-up word to a page, saved three ways: written in place, written to a temp file and
renamed over the page, deleted and created. "Wording" is the moment a search for that word returns the page;
"meaning" the moment the page's new chunk has a vector in the index and the search view a query reads holds
it (what a semantic search then ranks). Polled every 10 ms from the write; p50/p95 per pattern.

The pages to be edited are embedded before the watcher starts, so an edit embeds only its changed chunk (the
steady state of a vault whose backlog is done). Every other chunk gets a copy of a real vector (bench only), so
the search view reloaded after each edit is full size (its cost depends on how many vectors, not which) and the
language centres are settled, as in a vault embedded whole; ``--embed-all`` embeds every chunk for real instead
(many minutes on 2 shared cores). The machine's load average is printed, and what each watcher round did.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from bench.synth_vault import generate
from bench.tables import print_value_table
from sentinel.embed.factory import embedder_from_settings
from sentinel.index.migrations import transaction
from sentinel.index.watch import Freshened, VaultWatcher, freshen
from sentinel.search import centres
from sentinel.search.embedding import embed_pending, summary_passages
from sentinel.search.ladder import search
from sentinel.search.view import current_view
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from tests.support.embedder import E5_DIR
from tests.support.eval_data import eval_vault_path, missing_eval_vault

PATTERNS = ("in place", "temp + rename", "delete + create")


def _save(page: Path, text: str, pattern: str) -> None:
    if pattern == "in place":
        page.write_text(text, encoding="utf-8")
    elif pattern == "temp + rename":
        temp = page.with_name(f".{page.name}.tmp")
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, page)
    else:
        page.unlink()
        page.write_text(text, encoding="utf-8")


def _until(check: Callable[[], bool], started: float, timeout: float = 60.0) -> float:
    while not check():
        if time.perf_counter() - started > timeout:
            return float("nan")
        time.sleep(0.01)
    return time.perf_counter() - started


def _found_by_wording(ctx: ToolContext, word: str, path: str) -> bool:
    return any(hit.path == path for hit in search(ctx.reader(), ctx.settings, None, word, rung="body").hits)


def _in_view(ctx: ToolContext, path: str, word: str) -> bool:
    """The page's chunk with ``word`` has a vector, and the view a query would read now holds it."""
    db = ctx.reader()
    row = db.execute(
        """SELECT c.id FROM chunks c JOIN chunk_vectors v ON v.text_hash = c.text_hash AND v.trail = c.trail
           WHERE c.path = ? AND instr(c.text, ?)""",
        (path, word),
    ).fetchone()
    if row is None:
        return False
    view = current_view(db)
    return view.chunks is not None and bool((view.chunks.items == row[0]).any())


def _fill_vectors(db: sqlite3.Connection) -> int:
    """Give every chunk and summary passage without a vector a copy of a real chunk vector (the summary table
    starts from the chunk table's centres); the next ``embed_pending`` settles the centres."""
    chunk_centres = centres.load(db, "chunk_vectors")
    assert chunk_centres is not None, "embed some chunks first"
    with transaction(db):
        filled = db.execute(
            """INSERT OR IGNORE INTO chunk_vectors (text_hash, trail, vec, scale, centre, bits, tokens, truncated)
               SELECT c.text_hash, c.trail, v.vec, v.scale, v.centre, v.bits, v.tokens, v.truncated
               FROM chunks c, (SELECT * FROM chunk_vectors LIMIT 1) v"""
        ).rowcount
        if centres.load(db, "summary_vectors") is None:
            centres.first_centres(db, "summary_vectors", np.zeros((0, 0)), [], chunk_centres[0])
        vec, scale, centre, bits = db.execute("SELECT vec, scale, centre, bits FROM chunk_vectors LIMIT 1").fetchone()
        filled += db.executemany(
            """INSERT OR IGNORE INTO summary_vectors (text, vec, scale, centre, bits, tokens, truncated)
               VALUES (?,?,?,?,?,0,0)""",
            [(text, vec, scale, centre, bits) for text in summary_passages(db)],
        ).rowcount
    return filled


def _pct(values: list[float], q: float) -> str:
    ordered = sorted(v for v in values if v == v)
    if not ordered:
        return "timed out"
    return f"{ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000:.0f} ms"


def _round_rows(rounds: list[Freshened]) -> list[tuple[str, str]]:
    """What the watcher did per edit: how long a round took, how many chunks it embedded, full syncs."""
    edits = [r for r in rounds if r.report.changed_paths]
    if not edits:
        return [("watcher rounds", "none changed a page")]
    chunks = sorted(r.embedded for r in edits)
    full = sum(1 for r in edits if len(r.report.changed_paths) > 1 or r.report.removed)
    return [
        ("watcher rounds with an edit", f"{len(edits)} ({full} re-read more than the edited page)"),
        ("round time p50 / p95", f"{_pct([r.seconds for r in edits], 0.5)} / {_pct([r.seconds for r in edits], 0.95)}"),
        ("chunks embedded per round", f"median {statistics.median(chunks):g}, max {chunks[-1]}"),
        (
            "search view update p50 / p95",
            f"{_pct([r.view_s for r in edits], 0.5)} / {_pct([r.view_s for r in edits], 0.95)} "
            f"({sum(r.view == 'in place' for r in edits)} in place, {sum(r.view == 'whole' for r in edits)} whole)",
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=0, help="synthetic vault of this size (0: the eval vault)")
    parser.add_argument("--edits", type=int, default=10, help="edits per save pattern")
    parser.add_argument("--embedder-url", default="", help="the embedder service (default: e5 in process)")
    parser.add_argument(
        "--embed-all", action="store_true", help="embed the whole vault first, not just the edited pages"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="freshness-"))
    try:
        vault = work / "vault"
        if args.pages:
            generate(vault, args.pages)
        else:
            if reason := missing_eval_vault():
                raise SystemExit(reason)
            shutil.copytree(eval_vault_path(), vault)
        settings = Settings(
            vault=vault,
            index_path=work / "index.db",
            embedder_url=args.embedder_url,
            embed_model_dir=None if args.embedder_url else E5_DIR,
            sync_interval_s=0,
            _env_file=None,
        )
        ctx = ToolContext(settings=settings, embedder=embedder_from_settings(settings))
        assert ctx.embedder is not None
        load = os.getloadavg()[0]
        started = time.perf_counter()
        report = freshen(ctx, embed=False).report
        indexed_s = time.perf_counter() - started
        rng = random.Random(0)
        pages = sorted(report.changed_paths)
        edited = rng.sample(pages, min(len(pages), args.edits * len(PATTERNS)))
        started = time.perf_counter()
        with ctx.write_lock:
            embedded = embed_pending(ctx.writer(), ctx.embedder, paths=None if args.embed_all else edited).chunks
            embed_s = time.perf_counter() - started
            filled = 0 if args.embed_all else _fill_vectors(ctx.writer())
            embed_pending(ctx.writer(), ctx.embedder, paths=[])  # nothing to embed: settles the centres
        started = time.perf_counter()
        view = current_view(ctx.reader())
        view_s = time.perf_counter() - started
        rounds: list[Freshened] = []
        watcher = VaultWatcher(ctx, on_round=rounds.append)
        watcher.start()
        rows: list[tuple[str, str]] = [
            ("vault", f"{len(pages)} pages ({'synthetic' if args.pages else 'eval vault'})"),
            ("initial index", f"{indexed_s:.1f} s"),
            (
                "embedded first",
                f"{embedded} chunks of {'every page' if args.embed_all else 'the edited pages'}, {embed_s:.1f} s",
            ),
            ("vectors of other pages", f"{filled} copies of a real one" if filled else "real"),
            ("search view load", f"{view.embedded_chunks} vectors, {view_s * 1000:.0f} ms"),
            ("embedder", args.embedder_url or "in process"),
            ("debounce", f"{settings.watch_debounce_s:g} s"),
        ]
        try:
            for pattern in PATTERNS:
                wording, meaning = [], []
                for n in range(args.edits):
                    rel = edited.pop()
                    word = f"zqx{pattern[:2].strip()}{n}vor{rng.randrange(10**6)}"
                    page = vault / rel
                    text = page.read_text(encoding="utf-8") + f"\n\nThe {word} turns the index over at dawn.\n"
                    t0 = time.perf_counter()
                    _save(page, text, pattern)
                    wording.append(_until(partial(_found_by_wording, ctx, word, rel), t0))
                    meaning.append(_until(partial(_in_view, ctx, rel, word), t0))
                    time.sleep(0.2)
                rows += [
                    (f"{pattern}: wording p50 / p95", f"{_pct(wording, 0.5)} / {_pct(wording, 0.95)}"),
                    (f"{pattern}: meaning p50 / p95", f"{_pct(meaning, 0.5)} / {_pct(meaning, 0.95)}"),
                ]
        finally:
            watcher.stop()
        rows += _round_rows(rounds)
        print_value_table(
            f"edit to searchable, {os.cpu_count()} cores, load average {load:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after",
            rows,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
