"""Edit-to-searchable: how long after an editor saves a page it is found by wording and by meaning.

    .venv/bin/python bench/freshness.py                      # the eval vault (438 pages), in-process e5
    .venv/bin/python bench/freshness.py --pages 10000        # a synthetic vault (bench/synth_vault.py)
    .venv/bin/python bench/freshness.py --embedder-url http://127.0.0.1:8001   # through the embedder service

The real watcher (sentinel.index.watch, what the API runs) watches a copy of the vault. Each edit appends a
sentence with a fresh made-up word to a page, saved three ways: written in place, written to a temp file and
renamed over the page, deleted and created. "Wording" is the moment a search for that word returns the page;
"meaning" the moment the page's new chunk has a vector in the index and the search view is loaded with it (what
a semantic search then ranks). Polled every 10 ms from the write; p50/p95 per pattern.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.synth_vault import generate
from bench.tables import print_value_table
from sentinel.embed.factory import embedder_from_settings
from sentinel.index.watch import VaultWatcher, freshen
from sentinel.search.embedding import embed_pending
from sentinel.search.ladder import search
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from tests.conftest import EVAL_VAULT
from tests.support.embedder import E5_DIR

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


def _has_vector(ctx: ToolContext, path: str, word: str) -> bool:
    return (
        ctx.reader()
        .execute(
            """SELECT 1 FROM chunks c JOIN chunk_vectors v ON v.text_hash = c.text_hash AND v.trail = c.trail
               WHERE c.path = ? AND c.text LIKE ?""",
            (path, f"%{word}%"),
        )
        .fetchone()
        is not None
    )


def _pct(values: list[float], q: float) -> str:
    ordered = sorted(v for v in values if v == v)
    if not ordered:
        return "timed out"
    return f"{ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000:.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=0, help="synthetic vault of this size (0: the eval vault)")
    parser.add_argument("--edits", type=int, default=10, help="edits per save pattern")
    parser.add_argument("--embedder-url", default="", help="the embedder service (default: e5 in process)")
    parser.add_argument("--no-pre-embed", action="store_true", help="skip embedding the vault first (big vaults)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="freshness-"))
    try:
        vault = work / "vault"
        if args.pages:
            generate(vault, args.pages)
        else:
            shutil.copytree(EVAL_VAULT, vault)
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
        started = time.perf_counter()
        report = freshen(ctx, embed=False).report
        indexed_s = time.perf_counter() - started
        embed_s = 0.0
        if not args.no_pre_embed:
            started = time.perf_counter()
            with ctx.write_lock:
                embed_pending(ctx.writer(), ctx.embedder)
            embed_s = time.perf_counter() - started
        watcher = VaultWatcher(ctx)
        watcher.start()
        rng = random.Random(0)
        pages = sorted(report.changed_paths)
        rows: list[tuple[str, str]] = [
            ("vault", f"{len(pages)} pages ({'synthetic' if args.pages else 'eval vault'})"),
            ("initial index", f"{indexed_s:.1f} s"),
            ("initial embedding", f"{embed_s:.1f} s" if embed_s else "skipped (--no-pre-embed)"),
            ("embedder", args.embedder_url or "in process"),
            ("debounce", f"{settings.watch_debounce_s:g} s"),
        ]
        try:
            for pattern in PATTERNS:
                wording, meaning = [], []
                for n in range(args.edits):
                    rel = rng.choice(pages)
                    word = f"zqx{pattern[:2].strip()}{n}vor{rng.randrange(10**6)}"
                    page = vault / rel
                    text = page.read_text(encoding="utf-8") + f"\n\nThe {word} turns the index over at dawn.\n"
                    t0 = time.perf_counter()
                    _save(page, text, pattern)
                    wording.append(_until(lambda rel=rel, word=word: _found_by_wording(ctx, word, rel), t0))
                    meaning.append(_until(lambda rel=rel, word=word: _has_vector(ctx, rel, word), t0))
                    time.sleep(0.2)
                rows += [
                    (f"{pattern}: wording p50 / p95", f"{_pct(wording, 0.5)} / {_pct(wording, 0.95)}"),
                    (f"{pattern}: meaning p50 / p95", f"{_pct(meaning, 0.5)} / {_pct(meaning, 0.95)}"),
                ]
                print(f"{pattern}: meaning median {statistics.median(meaning) * 1000:.0f} ms", file=sys.stderr)
        finally:
            watcher.stop()
        print_value_table(f"edit to searchable, {os.cpu_count()} cores", rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
