"""Incremental embedding: only text that no stored vector covers is sent to the model.

Vectors are keyed by what was embedded (a chunk's text hash and heading trail; a page's summary passage),
never by row ids, so re-indexing the vault finds every unchanged vector again. The model that made them is
recorded in ``meta``; vectors of two models are never mixed: a different model stops here with the command
that re-embeds everything.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from sentinel.embed.base import Embedder, Embedding, ModelIdentity
from sentinel.errors import Conflict
from sentinel.index.migrations import transaction
from sentinel.paths import SUMMARY_RUNG_ROLES
from sentinel.search import centres, summaries
from sentinel.search.vectors import quantise, sign_bits

# Bump when what is embedded for a chunk or a summary changes: stored vectors then no longer match.
EMBED_FORMAT = 1
IDENTITY_KEY = "embed_model"
BATCH = 64
# Summaries first: one vector per summary-rung page makes a big vault searchable by meaning at page level in about
# a tenth of the time its chunks take (docs/scale.md); the chunks follow.
TABLES = ("summary_vectors", "chunk_vectors")

Progress = Callable[[int, int], None]


class VectorsFromAnotherModel(Conflict, RuntimeError):
    """The index holds vectors of another model (or embedding format) than the embedder offers."""


@dataclass
class EmbedCounts:
    chunks: int = 0  # chunk passages embedded in this run
    summaries: int = 0  # summary passages embedded in this run
    removed: int = 0  # vectors no chunk or page used any more
    truncated: list[str] = field(default_factory=list)  # what was cut at the model's limit: "path > trail"
    left: int = 0  # passages not embedded because ``out_of_time`` said stop (they stay pending)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "chunks": self.chunks,
            "summaries": self.summaries,
            "removed": self.removed,
            "truncated": self.truncated,
            "seconds": round(self.seconds, 3),
        }


def chunk_passage(trail: str, text: str) -> str:
    """What is embedded for a body chunk: its heading trail (title > headings), then its text."""
    return f"{trail}\n\n{text}"


def identity_record(identity: ModelIdentity) -> dict[str, object]:
    return {"name": identity.name, "dims": identity.dims, "file_hash": identity.file_hash, "format": EMBED_FORMAT}


def recorded_identity(db: sqlite3.Connection) -> dict[str, object] | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (IDENTITY_KEY,)).fetchone()
    return json.loads(row[0]) if row else None


def _describe(record: dict[str, object]) -> str:
    name, file_hash, dims, fmt = (record.get(k) for k in ("name", "file_hash", "dims", "format"))
    return f"{name} (file {file_hash}, {dims} dims, format {fmt})"


def mismatch(db: sqlite3.Connection, identity: ModelIdentity) -> str:
    """Why this embedder's vectors cannot be compared with the stored ones; empty when they can."""
    stored = recorded_identity(db)
    current = identity_record(identity)
    if stored is None or stored == current:
        return ""
    return (
        f"the index holds vectors made by {_describe(stored)} but the embedder is {_describe(current)}; "
        f"vectors of two models never mix: run {embed_command(reembed=True)} to embed everything again"
    )


def embed_command(reembed: bool = False) -> str:
    """The command that brings the vectors up to date, worded for wherever the reader is: results are read in
    Open WebUI on the Compose stack (`make embed`, in the Sentinel folder) or on the command line."""
    if reembed:
        return "`make embed reembed=1` (the stack) or `sentinel embed --reembed` (the command line)"
    return "`make embed` (the stack) or `sentinel embed` (the command line)"


def embed_pending(
    db: sqlite3.Connection,
    embedder: Embedder,
    *,
    reembed: bool = False,
    progress: Progress | None = None,
    paths: list[str] | None = None,
    out_of_time: Callable[[], bool] | None = None,
) -> EmbedCounts:
    """Embed every chunk and summary passage that has no vector yet; drop vectors nothing uses any more.

    ``reembed`` first deletes all vectors and records the embedder's identity (the explicit way to change
    models). Each batch is committed on its own, so an interrupted run keeps what it finished. ``paths`` (the
    live watcher's just-edited pages) embeds only their chunks and summary passages and drops nothing: seconds,
    not the vault's whole backlog. ``out_of_time`` is asked between batches (a pass's time budget).
    Raises ``VectorsFromAnotherModel`` when the index holds another model's vectors and ``reembed`` is off.
    """
    started = time.perf_counter()
    counts = EmbedCounts()
    begin(db, embedder.identity, reembed)
    jobs = pending(db, paths)
    total = sum(len(j) for j in jobs.values())
    done = 0
    if progress:
        progress(0, total)
    chunk_centres = summary_seeds(db)
    for table in TABLES:
        seeds = seeds_for(table, chunk_centres)
        for start in range(0, len(jobs[table]), BATCH):
            if out_of_time is not None and out_of_time():
                counts.left += len(jobs[table]) - start
                jobs[table] = jobs[table][:start]
                break
            batch = jobs[table][start : start + BATCH]
            embedding = embedder.embed([job.passage for job in batch], "passage")
            counts.truncated += store_batch(db, table, batch, embedding, seeds)
            done += len(batch)
            if progress:
                progress(done, total)
        table_filled(db, table, seeds)
    counts.chunks, counts.summaries = len(jobs["chunk_vectors"]), len(jobs["summary_vectors"])
    counts.removed = finish(db, chunk_centres, whole=paths is None)
    counts.seconds = time.perf_counter() - started
    return counts


def begin(db: sqlite3.Connection, identity: ModelIdentity, reembed: bool) -> None:
    """A run's start, in process or split across workers: ``reembed`` drops every vector; otherwise vectors of
    another model stop the run (``VectorsFromAnotherModel``). Then ``identity`` is recorded as the index's."""
    with transaction(db):
        if reembed:
            for table in TABLES:
                db.execute(f"DELETE FROM {table}")
                db.execute("DELETE FROM meta WHERE key = ?", (centres.CENTRES_KEY.format(table=table),))
            db.execute("UPDATE search_generation SET n = n + 1")  # unlogged: every view reloads whole
        elif reason := mismatch(db, identity):
            raise VectorsFromAnotherModel(reason)
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (IDENTITY_KEY, json.dumps(identity_record(identity))),
        )


def pending(db: sqlite3.Connection, paths: list[str] | None = None) -> dict[str, list[Job]]:
    """What has no vector yet, per table (embedded in ``TABLES`` order)."""
    return {"chunk_vectors": _pending_chunks(db, paths), "summary_vectors": _pending_summaries(db, paths)}


def summary_seeds(db: sqlite3.Connection) -> centres.Centres | None:
    """The chunk table's centres as a run starts: the summary table takes its languages from them."""
    return _loaded_centres(db, "chunk_vectors")


def seeds_for(table: str, chunk_centres: centres.Centres | None) -> centres.Centres | None:
    """What a table's first centres are seeded from: the summaries take the chunk table's languages."""
    return chunk_centres if table == "summary_vectors" else None


def table_filled(db: sqlite3.Connection, table: str, seeds: centres.Centres | None) -> None:
    """A table's batches are all stored: its centres are refreshed if it grew enough."""
    centres.refresh_if_grown(db, table, partial(_texts_of, db, table), seeds=seeds)


def finish(db: sqlite3.Connection, chunk_centres: centres.Centres | None, *, whole: bool) -> int:
    """A run's end: the summaries re-seeded on the chunk table's centres, and (a ``whole`` run) unused vectors
    dropped; returns how many were."""
    _reseed_summaries(db, chunk_centres)
    # an edit's old vectors stay until the next whole run (the nightly pass, `sentinel embed`): finding them
    # scans every vector (0.7 s at 94,791), which a live edit should not wait for; an undone edit reuses them
    return _remove_unused(db) if whole else 0


def store_batch(
    db: sqlite3.Connection, table: str, batch: list[Job], embedding: Embedding, seeds: centres.Centres | None
) -> list[str]:
    """Store one batch's vectors (in process or returned by a worker); the labels of passages cut at the model's
    limit."""
    _store(db, table, batch, embedding.vectors, embedding.tokens, embedding.truncated, seeds)
    return [job.label for job, cut in zip(batch, embedding.truncated, strict=True) if cut]


@dataclass(frozen=True)
class Job:
    key: tuple[str, ...]  # chunk: (text_hash, trail); summary: (passage,)
    passage: str
    label: str  # names the passage in reports


def _pending_chunks(db: sqlite3.Connection, paths: list[str] | None = None) -> list[Job]:
    missing = "NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.text_hash = c.text_hash AND v.trail = c.trail)"
    if paths is None:
        rows = db.execute(
            f"""SELECT c.text_hash, c.trail, c.text, c.path FROM chunks c
               WHERE c.id IN (SELECT MIN(id) FROM chunks GROUP BY text_hash, trail) AND {missing}
               ORDER BY c.id"""
        ).fetchall()
    else:
        rows, seen = [], set()
        for path in paths:
            for row in db.execute(
                f"SELECT c.text_hash, c.trail, c.text, c.path FROM chunks c WHERE c.path = ? AND {missing} "
                "ORDER BY c.id",
                (path,),
            ):
                if (row[0], row[1]) not in seen:  # the same passage twice is embedded once
                    seen.add((row[0], row[1]))
                    rows.append(row)
    return [Job((h, trail), chunk_passage(trail, text), f"{path} > {trail}") for h, trail, text, path in rows]


def summary_passages(db: sqlite3.Connection, paths: list[str] | None = None) -> dict[str, str]:
    """The summary passage of every summary-rung page (or of these ``paths``), with the path of a page using it."""
    roles = sorted(SUMMARY_RUNG_ROLES)
    where = f"p.role IN ({','.join('?' * len(roles))})"
    if paths is None:
        return {page.passage: page.path for page in summaries.page_summaries(db, where, roles)}
    found: dict[str, str] = {}
    for start in range(0, len(paths), 500):
        batch = paths[start : start + 500]
        pages = summaries.page_summaries(db, f"{where} AND p.path IN ({','.join('?' * len(batch))})", [*roles, *batch])
        found.update((page.passage, page.path) for page in pages)
    return found


def _pending_summaries(db: sqlite3.Connection, paths: list[str] | None) -> list[Job]:
    """Summary passages with no vector: every page's, or (the live watcher) just the edited pages' (an edit to a
    page's first lines or headings changes its passage: without a vector it would drop out of the summary leg
    until the nightly pass)."""
    wanted = summary_passages(db, paths)
    if paths is None:
        have = {r[0] for r in db.execute("SELECT text FROM summary_vectors")}
    else:
        texts = list(wanted)
        have = set()
        for start in range(0, len(texts), 500):
            batch = texts[start : start + 500]
            marks = ",".join("?" * len(batch))
            have.update(r[0] for r in db.execute(f"SELECT text FROM summary_vectors WHERE text IN ({marks})", batch))
    return [Job((text,), text, f"{path} (summary)") for text, path in wanted.items() if text not in have]


def _texts_of(db: sqlite3.Connection, table: str, ids: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        if table == "summary_vectors":
            out.update(db.execute(f"SELECT id, text FROM summary_vectors WHERE id IN ({marks})", batch).fetchall())
            continue
        for vid, trail, text in db.execute(
            f"""SELECT v.id, v.trail, (SELECT c.text FROM chunks c WHERE c.text_hash = v.text_hash LIMIT 1)
                FROM chunk_vectors v WHERE v.id IN ({marks})""",
            batch,
        ):
            if text is not None:
                out[vid] = chunk_passage(trail, text)
    return out


def _store(
    db: sqlite3.Connection,
    table: str,
    batch: list[Job],
    vectors: np.ndarray,
    tokens: list[int],
    truncated: list[bool],
    seeds: centres.Centres | None,
) -> None:
    q, scales = quantise(vectors)
    with transaction(db):
        known = centres.load(db, table)
        table_centres = (
            known[0] if known else centres.first_centres(db, table, vectors, [j.passage for j in batch], seeds)
        )
        which = table_centres.nearest(vectors)
        bits = sign_bits(table_centres.centred(vectors, which))
        for i, job in enumerate(batch):
            values = (q[i].tobytes(), float(scales[i]), int(which[i]), bits[i].tobytes(), tokens[i], int(truncated[i]))
            if table == "chunk_vectors":
                db.execute(
                    """INSERT OR IGNORE INTO chunk_vectors
                       (text_hash, trail, vec, scale, centre, bits, tokens, truncated) VALUES (?,?,?,?,?,?,?,?)""",
                    (*job.key, *values),
                )
            else:
                db.execute(
                    """INSERT OR IGNORE INTO summary_vectors (text, vec, scale, centre, bits, tokens, truncated)
                       VALUES (?,?,?,?,?,?,?)""",
                    (*job.key, *values),
                )


def _reseed_summaries(db: sqlite3.Connection, before: centres.Centres | None) -> None:
    """The summary table takes the chunk table's languages (page summaries are too few in a small vault to tell
    languages apart); when the chunks embedded after the summaries made or moved those centres, the summaries
    are refreshed on the new ones: with every chunk in, the summary rows end as if the chunks had gone first."""
    after = _loaded_centres(db, "chunk_vectors")
    if after is None or (before is not None and _same(before, after)):
        return
    centres.refresh_if_grown(db, "summary_vectors", partial(_texts_of, db, "summary_vectors"), seeds=after, force=True)


def _same(a: centres.Centres, b: centres.Centres) -> bool:
    return a.languages == b.languages and np.array_equal(a.vectors, b.vectors)


def _loaded_centres(db: sqlite3.Connection, table: str) -> centres.Centres | None:
    known = centres.load(db, table)
    return known[0] if known else None


def _remove_unused(db: sqlite3.Connection) -> int:
    """Drop vectors that no current chunk or summary uses (edited or deleted text)."""
    with transaction(db):
        removed = db.execute(
            """DELETE FROM chunk_vectors WHERE NOT EXISTS (SELECT 1 FROM chunks c
                   WHERE c.text_hash = chunk_vectors.text_hash AND c.trail = chunk_vectors.trail)"""
        ).rowcount
        wanted = set(summary_passages(db))
        stale = [(t,) for (t,) in db.execute("SELECT text FROM summary_vectors") if t not in wanted]
        db.executemany("DELETE FROM summary_vectors WHERE text = ?", stale)
        removed += len(stale)
    return removed
