"""One embedding run cut into batches that other processes embed (Celery workers, on this machine or others),
stored back by the index's one writer exactly as ``embed_pending`` stores them.

The batches are ``embed_pending``'s own: the same pending passages (summaries first, then chunks), cut at the
same ``BATCH`` boundaries, so a worker embeds exactly the texts the in-process run would have embedded together.
Their vectors are stored in batch order whatever order they come back in (the first batch of a table makes its
first centres, and row ids follow the order of the inserts), through the same ``store_batch``, with each table's
centres refreshed after its last batch and the summaries re-seeded at the end: the index ends identical to the
in-process run's (tests/worker/test_embed_split.py compares the vector tables).

A batch travels as its number and passages; what comes back is packed by ``pack`` (float32 bytes, base64) with
the identity of the model that made it, which must be the run's: vectors of two models never mix.
"""

from __future__ import annotations

import base64
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sentinel.embed.base import Embedding, ModelIdentity
from sentinel.errors import BadInput, Conflict
from sentinel.search.embedding import (
    BATCH,
    TABLES,
    EmbedCounts,
    Job,
    begin,
    finish,
    identity_record,
    pending,
    seeds_for,
    store_batch,
    summary_seeds,
    table_filled,
)


class WorkerModelDiffers(Conflict, RuntimeError):
    """A worker embedded a batch with another model than the run's: its vectors cannot join the index."""


@dataclass(frozen=True)
class Batch:
    number: int
    table: str
    jobs: list[Job]

    @property
    def passages(self) -> list[str]:
        return [job.passage for job in self.jobs]

    @property
    def ids(self) -> list[tuple[str, ...]]:
        """What each vector is stored under: a chunk's (text hash, trail), a summary's passage."""
        return [job.key for job in self.jobs]


def pack(embedding: Embedding, identity: ModelIdentity) -> dict[str, Any]:
    """A worker's answer for one batch, in JSON (Celery's serializer): float32 bytes exactly, never rounded."""
    vectors = np.ascontiguousarray(embedding.vectors, dtype=np.float32)
    return {
        "vectors": base64.b64encode(vectors.tobytes()).decode("ascii"),
        "dims": int(vectors.shape[1]) if vectors.ndim == 2 else 0,
        "tokens": [int(t) for t in embedding.tokens],
        "truncated": [bool(t) for t in embedding.truncated],
        "identity": identity_record(identity),
    }


def unpack(answer: dict[str, Any]) -> tuple[Embedding, dict[str, object]]:
    """``pack``'s answer back: the embedding and the identity record of the model that made it."""
    raw = np.frombuffer(base64.b64decode(answer["vectors"]), dtype=np.float32)
    dims = int(answer["dims"])
    vectors = raw.reshape(-1, dims) if dims else raw.reshape(0, 0)
    return Embedding(vectors.copy(), list(answer["truncated"]), list(answer["tokens"])), dict(answer["identity"])


@dataclass
class SplitRun:
    """A whole run's batches and where their storing stands. ``plan`` starts it (as ``embed_pending`` starts);
    ``store`` takes batch ``stored`` next; ``end`` once every batch is in."""

    identity: ModelIdentity
    batches: list[Batch]
    chunk_centres: Any  # centres.Centres | None: the chunk table's as the run began (the summaries' seeds)
    stored: int = 0
    counts: EmbedCounts = field(default_factory=EmbedCounts)
    filled: set[str] = field(default_factory=set)
    started: float = field(default_factory=time.perf_counter)
    _last: dict[str, int] = field(default_factory=dict)  # each table's last batch number

    def __post_init__(self) -> None:
        self._last = {batch.table: batch.number for batch in self.batches}

    @classmethod
    def plan(
        cls, db: sqlite3.Connection, identity: ModelIdentity, *, reembed: bool = False, size: int = BATCH
    ) -> SplitRun:
        """Start a run on ``db`` (the writer's connection): the same start as ``embed_pending`` (``reembed``, or
        refusing another model's vectors), then every pending passage cut into batches."""
        if size < 1:
            raise BadInput(f"a batch holds at least one passage, not {size}")
        begin(db, identity, reembed)
        jobs = pending(db)
        batches: list[Batch] = []
        for table in TABLES:
            for start in range(0, len(jobs[table]), size):
                batches.append(Batch(len(batches), table, jobs[table][start : start + size]))
        run = cls(identity, batches, summary_seeds(db))
        run._fill_finished_tables(db)
        return run

    @property
    def done(self) -> bool:
        return self.stored >= len(self.batches)

    def store(self, db: sqlite3.Connection, number: int, embedding: Embedding, made_by: dict[str, object]) -> None:
        """Store batch ``number``'s vectors; it must be the next one (``stored``), made by the run's model."""
        if number != self.stored:
            raise BadInput(f"batches are stored in order: batch {self.stored} is next, not {number}")
        batch = self.batches[number]
        if made_by != identity_record(self.identity):
            raise WorkerModelDiffers(
                f"a worker embedded batch {number} with {made_by} but this run's model is "
                f"{identity_record(self.identity)}: give every embedding worker the same model as the API"
            )
        if embedding.vectors.shape[0] != len(batch.jobs):
            raise BadInput(f"batch {number} holds {len(batch.jobs)} passages but {len(embedding.vectors)} vectors came")
        self.counts.truncated += store_batch(
            db, batch.table, batch.jobs, embedding, seeds_for(batch.table, self.chunk_centres)
        )
        if batch.table == "summary_vectors":
            self.counts.summaries += len(batch.jobs)
        else:
            self.counts.chunks += len(batch.jobs)
        self.stored += 1
        self._fill_finished_tables(db)

    def end(self, db: sqlite3.Connection) -> EmbedCounts:
        """Every batch stored: the summaries re-seeded and unused vectors dropped, as a whole in-process run ends."""
        if not self.done:
            raise BadInput(f"{len(self.batches) - self.stored} batches are still to be stored")
        self.counts.removed = finish(db, self.chunk_centres, whole=True)
        self.counts.seconds = time.perf_counter() - self.started
        return self.counts

    def progress(self) -> dict[str, object]:
        """Batches stored of all, and the passages of each table: summaries (one vector per page) come first."""
        per_table = {table: [0, 0] for table in TABLES}
        for batch in self.batches:
            per_table[batch.table][1] += len(batch.jobs)
            if batch.number < self.stored:
                per_table[batch.table][0] += len(batch.jobs)
        summaries, chunks = per_table["summary_vectors"], per_table["chunk_vectors"]
        return {
            "batches": {"done": self.stored, "total": len(self.batches)},
            "page_vectors": {"done": summaries[0], "total": summaries[1]},
            "chunks": {"done": chunks[0], "total": chunks[1]},
        }

    def _fill_finished_tables(self, db: sqlite3.Connection) -> None:
        """Refresh each table's centres once its last batch is stored, in ``TABLES`` order, before the next
        table's first batch: where ``embed_pending`` refreshes them."""
        for table in TABLES:
            if table in self.filled:
                continue
            if self._last.get(table, -1) >= self.stored:
                return
            table_filled(db, table, seeds_for(table, self.chunk_centres))
            self.filled.add(table)
