"""What the held postings are read from: a word's doclist and every chunk's token count, from FTS5's own tables.

``sentinel.search.postings`` holds what these read and ranks from it; both read in bounded batches, so a common
word or a large index never has all its rows as Python objects or per-row temporaries at once (docs/scale.md,
"Peak RSS at 1M (stop 46)").
"""

from __future__ import annotations

import itertools
import sqlite3

import numpy as np

INSTANCES = "temp.chunks_instances"
INSTANCES_TABLE = f"CREATE VIRTUAL TABLE IF NOT EXISTS {INSTANCES} USING fts5vocab(main, chunks_fts, instance)"

# docsize rows decoded at a time: read all at once, their Python objects and the decoding's per-byte arrays
# peaked at 3.3 GB at 1M synthetic pages (10.5M chunks); at 100k pages 2^18 rows a batch rose the peak by 148 MB
# (1.44 s CPU), 2^16 by 41 MB (1.16 s), 2^14 by 15 MB (1.01 s)
SIZES_BATCH = 1 << 14
POSTINGS_BATCH = 1 << 18  # a word's instances counted at a time (``read``): 2 MB of int64 chunk ids


def read(db: sqlite3.Connection, word: str, batch: int = POSTINGS_BATCH) -> tuple[np.ndarray, np.ndarray]:
    """``word``'s chunks ascending and its count in each (all columns), from one row per instance: counted here,
    half the time of SQLite's ``GROUP BY doc`` (bench/lexical_postings.py's section in docs/scale.md). FTS5 walks
    a word's doclist in chunk order, so the instances are counted ``batch`` rows at a time, a chunk's run carried
    across batches: a common word's instances all at once (29M of "de" at 1M pages) peaked at ~0.5 GB. Should
    they ever come out of order, they are read again whole and sorted (the same result either way)."""
    db.execute(INSTANCES_TABLE)  # on a query's connection the first time: TEMP is the connection's own
    cursor = db.cursor()
    cursor.row_factory = None  # plain tuples
    docs = (r[0] for r in cursor.execute(f"SELECT doc FROM {INSTANCES} WHERE term = ?", (word,)))
    id_parts: list[np.ndarray] = []
    count_parts: list[np.ndarray] = []
    last, carried = -1, 0  # the chunk of the previous batch's last run and its count so far
    while len(part := np.fromiter(itertools.islice(docs, batch), dtype=np.int64)):
        if part[0] < last or (len(part) > 1 and bool((part[1:] < part[:-1]).any())):
            cursor.close()
            return read_sorted(db, word)
        starts = np.flatnonzero(np.concatenate(([True], part[1:] != part[:-1])))
        ids, counts = part[starts], np.diff(np.append(starts, len(part)))
        if ids[0] == last:  # the carried chunk goes on in this batch
            counts[0] += carried
        elif last >= 0:
            id_parts.append(_one(last))
            count_parts.append(_one(carried))
        last, carried = int(ids[-1]), int(counts[-1])  # held back: it may go on in the next batch
        id_parts.append(ids[:-1].astype(np.min_scalar_type(int(ids.max()))))
        count_parts.append(counts[:-1].astype(np.min_scalar_type(int(counts.max()))))
    if last >= 0:
        id_parts.append(_one(last))
        count_parts.append(_one(carried))
    return _narrowest(id_parts), _narrowest(count_parts)


def _one(value: int) -> np.ndarray:
    return np.array([value], dtype=np.min_scalar_type(value))


def _narrowest(parts: list[np.ndarray]) -> np.ndarray:
    """The parts end to end in the smallest unsigned type that holds every value (uint8 for none)."""
    if not parts:
        return np.zeros(0, dtype=np.uint8)
    top = max(int(p.max(initial=0)) for p in parts)
    return np.concatenate(parts).astype(np.min_scalar_type(top), copy=False)


def read_sorted(db: sqlite3.Connection, word: str) -> tuple[np.ndarray, np.ndarray]:
    """``read`` from every instance at once, sorted here: for instances not in chunk order."""
    rows = db.execute(f"SELECT doc FROM {INSTANCES} WHERE term = ?", (word,))
    docs = np.sort(np.fromiter((r[0] for r in rows), dtype=np.int64), kind="stable")
    starts = np.flatnonzero(np.concatenate(([True], docs[1:] != docs[:-1]))) if len(docs) else docs
    ids, counts = docs[starts], np.diff(np.append(starts, len(docs)))
    return ids.astype(np.min_scalar_type(int(ids.max(initial=0)))), counts.astype(
        np.min_scalar_type(int(counts.max(initial=0)))
    )


def token_counts(db: sqlite3.Connection, batch: int = SIZES_BATCH) -> tuple[int, float, np.ndarray]:
    """FTS5's N, avgdl and each chunk's token count (by chunk id), from the docsize table: one varint per
    column, SQLite's format (seven bits a byte, the high ones first; a chunk's count never needs nine bytes)."""
    top = db.execute("SELECT MAX(id) FROM chunks_fts_docsize").fetchone()[0]
    if top is None:
        return 0, 0.0, np.zeros(1, dtype=np.int32)
    tokens = np.zeros(int(top) + 1, dtype=np.int32)
    rows = total = 0
    cursor = db.execute("SELECT id, sz FROM chunks_fts_docsize")
    while part := cursor.fetchmany(batch):
        ids = np.fromiter((r[0] for r in part), dtype=np.int64, count=len(part))
        per_row = _varint_sums([bytes(r[1]) for r in part])
        tokens[ids] = per_row
        rows += len(part)
        total += int(per_row.sum())
    return rows, float(total) / rows, tokens


def _varint_sums(blobs: list[bytes]) -> np.ndarray:
    """Each docsize blob's varints summed: a chunk's tokens in all columns."""
    data = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    ends = np.flatnonzero((data & 0x80) == 0)
    varint_of_byte = np.searchsorted(ends, np.arange(len(data)))
    shifts = 7 * (ends[varint_of_byte] - np.arange(len(data)))
    values = np.bincount(varint_of_byte, weights=(data & 0x7F).astype(np.int64) << shifts)  # exact: < 2**53
    row_of_byte = np.repeat(np.arange(len(blobs)), [len(b) for b in blobs])
    return np.bincount(row_of_byte[ends], weights=values, minlength=len(blobs)).astype(np.int64)
