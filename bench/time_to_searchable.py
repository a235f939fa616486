"""Real chunks for the embedding benches, and a vault's time to searchable (indexed, then every chunk embedded).

Summaries are embedded first (one vector per summary-rung page), so a vault is searchable by meaning at page
level well before its chunks are in: ``pages_s`` is that moment, measured (in sample mode every summary is
still embedded and timed; only the chunks are sampled).

Used by ``bench/embed_throughput.py``: ``vault_chunks`` indexes a vault into a scratch index and returns the
passages ``sentinel embed`` would send (``chunk_passage``: trail, then text), so chunks/s is measured on what
is really embedded. ``time_to_searchable`` indexes a vault and embeds its chunks in process; with
``sample`` it embeds only that many (spread over the vault) and extrapolates the rest from their rate, and
says so in the row.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.embedding import chunk_passage, embed_pending, summary_passages
from sentinel.settings import Settings


@dataclass
class Searchable:
    pages: int
    chunks: int
    index_s: float
    embed_s: float  # measured, or extrapolated from ``embedded`` chunks
    embedded: int  # chunks really embedded (all of them unless sampled)
    truncated: int  # of those, cut at e5's 512 tokens
    pages_s: float = 0.0  # embedding time until every summary vector was in: searchable by meaning per page

    @property
    def how(self) -> str:
        if self.embedded >= self.chunks:
            return "measured"
        return f"index measured; embedding from {self.embedded} of {self.chunks} chunks at their rate"


def _settings(vault: Path, scratch: Path) -> Settings:
    return Settings(vault=vault, index_path=scratch / "index.db", sync_interval_s=0, _env_file=None)


def _passages(db: sqlite3.Connection) -> list[str]:
    """Every distinct chunk passage of the index, in index order (what ``embed_pending`` sends)."""
    rows = db.execute(
        "SELECT trail, text FROM chunks WHERE id IN (SELECT MIN(id) FROM chunks GROUP BY text_hash, trail) ORDER BY id"
    ).fetchall()
    return [chunk_passage(trail, text) for trail, text in rows]


def vault_chunks(vault: Path) -> list[str]:
    """Every distinct chunk passage of ``vault``."""
    with tempfile.TemporaryDirectory(prefix="chunks-") as scratch:
        settings = _settings(vault, Path(scratch))
        db = open_index(settings)
        sync(settings, db)
        passages = _passages(db)
        db.close()
    return passages


def spread(items: list[str], count: int) -> list[str]:
    """``count`` items taken evenly over ``items`` (all of them when there are fewer)."""
    if count >= len(items):
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def time_to_searchable(vault: Path, embedder: OnnxEmbedder, sample: int = 0) -> Searchable:
    """Index ``vault`` from nothing, then embed its chunks (all, or ``sample`` of them and extrapolate)."""
    scratch = Path(tempfile.mkdtemp(prefix="searchable-"))
    try:
        settings = _settings(vault, scratch)
        db = open_index(settings)
        started = time.perf_counter()
        report = sync(settings, db)
        index_s = time.perf_counter() - started
        total = int(db.execute("SELECT COUNT(*) FROM (SELECT 1 FROM chunks GROUP BY text_hash, trail)").fetchone()[0])
        summaries = list(summary_passages(db))
        if sample and sample < total:
            passages = spread(_passages(db), sample)
            started = time.perf_counter()
            embedder.embed(summaries, "passage")
            pages_s = time.perf_counter() - started
            started = time.perf_counter()
            result = embedder.embed(passages, "passage")
            embed_s = pages_s + (time.perf_counter() - started) * total / len(passages)
            embedded, truncated = len(passages), sum(result.truncated)
        else:
            started = time.perf_counter()
            reached: list[float] = []

            def progress(done: int, _: int) -> None:
                if done >= len(summaries) and not reached:
                    reached.append(time.perf_counter() - started)

            counts = embed_pending(db, embedder, progress=progress)
            embed_s, embedded, truncated = counts.seconds, counts.chunks, len(counts.truncated)
            pages_s = reached[0] if reached else embed_s
        db.close()
        return Searchable(len(report.changed_paths), total, index_s, embed_s, embedded, truncated, pages_s)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
