"""Vectors in the index: int8 storage, language centres, sign bits for candidates, exact rescoring.

Measured choices (bench/retrieval.py, bench/search_latency.py, ENVIRONMENT.md):

- sqlite-vec 0.1.9 is brute force (36 ms at 100k vectors, 359 ms at 1M), too slow for the body rung of a
  100k-page vault (~1M chunks). Vectors are plain BLOBs in the index instead: int8 with a per-vector scale
  (4x smaller than float32, cosine to the float vector >= 0.9999).
- multilingual-e5 places every text near the centre of its language: a German query prefers any German
  page to the English page that answers it (0/5 cross-lingual hits for every baseline). Each vector is
  compared after subtracting the centre of its language (``Centres``), which removes that pull; on the eval
  set this took semantic cross-lingual hit@5 from 1/5 to 4/5 and nDCG@10 from .50 to .66.
- A search holds only the sign bits of the centred vectors in memory (48 bytes a vector: 48 MB at 1M),
  takes the nearest ``CANDIDATES`` by Hamming distance, reads their int8 vectors from the view's mapped
  store (``sentinel.search.store``; from SQLite where there is none) and ranks them by the exact centred
  cosine. The candidates are cut at a distance read off the histogram of the distances (0..dims), not by a
  partial sort of every row: at 950k vectors 3.5 ms against argpartition's 18.
  How often this first stage keeps the exhaustive ranking's top 10: ``bench/first_stage.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sentinel.search import store

# Hamming candidates rescored exactly per query, chosen on the 100k-page synthetic vault (bench/first_stage.py,
# body chunks: recall of the exhaustive int8 top 10 .793 at 400, .965 at 1000, .995 at 1500, 1.0 at 2500; 1500 cost
# no more than 400). Reported on other sets in docs/scale.md.
CANDIDATES = 1500


def quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit float vectors to int8 rows and the per-row scale that restores them (``q * scale``)."""
    peak = np.abs(vectors).max(axis=1, keepdims=True)
    scale = np.maximum(peak, 1e-12) / 127.0
    q = np.clip(np.rint(vectors / scale), -127, 127).astype(np.int8)
    return q, scale[:, 0].astype(np.float32)


def restore(blobs: Sequence[bytes], scales: Sequence[float], dims: int) -> np.ndarray:
    """int8 BLOBs and their scales back to float32 rows."""
    q = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), dims).astype(np.float32)
    return q * np.asarray(scales, dtype=np.float32)[:, None]


@dataclass(frozen=True)
class Centres:
    """The centre of each language found in a vector table (one global centre for a one-language vault)."""

    vectors: np.ndarray  # (c, dims) float32
    languages: tuple[str, ...]

    def nearest(self, vectors: np.ndarray) -> np.ndarray:
        """Index of the centre each row belongs to: the language it is written in."""
        return np.argmax(vectors @ self.vectors.T, axis=1).astype(np.int16)

    def centred(self, vectors: np.ndarray, which: np.ndarray | None = None, *, in_place: bool = False) -> np.ndarray:
        """Rows minus their language's centre, back at unit length (``in_place``: written over ``vectors``, the
        same values without two fresh arrays of their size: 1500 rows of 384 dims, ~0.4 ms a query)."""
        which = self.nearest(vectors) if which is None else which
        own = in_place and vectors.dtype == np.result_type(vectors, self.vectors)  # else a wider fresh array
        out = np.subtract(vectors, self.vectors[which], out=vectors if own else None)
        return np.divide(out, np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12), out=out)


def sign_bits(centred: np.ndarray) -> np.ndarray:
    """Signs of centred rows packed 64 to a word: (n, ceil(dims/64)) uint64."""
    packed = np.packbits(centred > 0, axis=1)
    width = -(-packed.shape[1] // 8) * 8
    if width != packed.shape[1]:
        packed = np.concatenate([packed, np.zeros((len(packed), width - packed.shape[1]), np.uint8)], axis=1)
    return np.ascontiguousarray(packed).view(np.uint64)


@dataclass
class VectorSet:
    """The in-memory part of one vector table, as seen through the items that use it."""

    table: str  # chunk_vectors | summary_vectors
    items: np.ndarray  # (n,) int64: the chunk id or page rowid each row stands for
    vector_ids: np.ndarray  # (n,) int64: rowid in ``table``
    centre_of: np.ndarray  # (n,) int16: index into ``centres``
    bits: np.ndarray  # (words, n) uint64: word-major, so a query scans each word as one long contiguous row
    centres: Centres
    dims: int
    scales: np.ndarray | None = None  # (n,) float32: each row's int8 scale
    slots: np.ndarray | None = None  # (n,) int64: each row's int8 vector in ``mapped``
    mapped: np.ndarray | None = None  # (m, dims) int8 mapped store (sentinel.search.store); None: fetch from SQLite

    def __len__(self) -> int:
        return len(self.items)

    def first(self, rows: int) -> VectorSet:
        """The first ``rows`` rows, as a set of their own sharing this one's memory (the summary rung's chunks:
        ``sentinel.search.view_rows.view_order`` puts them first)."""
        if rows == len(self):
            return self
        return VectorSet(
            self.table,
            self.items[:rows],
            self.vector_ids[:rows],
            self.centre_of[:rows],
            self.bits[:, :rows],
            self.centres,
            self.dims,
            self.scales[:rows] if self.scales is not None else None,
            self.slots[:rows] if self.slots is not None else None,
            self.mapped,
        )

    def subset(self, mask: np.ndarray) -> VectorSet:
        """The rows where ``mask`` is True, as a set of their own (for a rung that sees only some roles)."""
        return VectorSet(
            self.table,
            self.items[mask],
            self.vector_ids[mask],
            self.centre_of[mask],
            np.ascontiguousarray(self.bits[:, mask]),
            self.centres,
            self.dims,
            self.scales[mask] if self.scales is not None else None,
            self.slots[mask] if self.slots is not None else None,
            self.mapped,
        )


def nearest(
    db: sqlite3.Connection, vectors: VectorSet, query: np.ndarray, k: int, candidates: int = CANDIDATES
) -> list[int]:
    """The ``k`` items nearest to ``query`` (a unit vector from the same model), best first."""
    return list(nearest_scored(db, vectors, query, k, candidates))


def nearest_scored(
    db: sqlite3.Connection, vectors: VectorSet, query: np.ndarray, k: int, candidates: int = CANDIDATES
) -> dict[int, float]:
    """``nearest`` with each item's exact centred cosine, best first. The scores go as far as the fusion of the
    legs (``fusion.convex_pages``) and no further: no result carries a similarity."""
    if not len(vectors) or k <= 0:
        return {}
    return _nearest_centred(db, vectors, vectors.centres.centred(query[None, :])[0], k, candidates)


def fed_back(
    db: sqlite3.Connection,
    vectors: VectorSet,
    query: np.ndarray,
    units: Sequence[int],
    beta: float,
    k: int,
    candidates: int = CANDIDATES,
) -> dict[int, float]:
    """``nearest_scored`` again for the query moved toward ``units`` (items of ``vectors``, the first pass's best):
    normalise(centred query + ``beta`` x the mean of their centred vectors), Rocchio's pseudo-relevance feedback in
    the centred space the leg ranks in (a paraphrase the question's words do not reach may lie near what they
    found). One more sign-bit scan and exact rescoring; {} where none of ``units`` is in ``vectors``."""
    if not len(vectors) or k <= 0 or not len(units):
        return {}
    rows, restored = restored_rows(db, vectors, np.flatnonzero(np.isin(vectors.items, np.asarray(units, np.int64))))
    if not len(rows):
        return {}
    centred = vectors.centres.centred(restored, vectors.centre_of[rows], in_place=True)
    moved = vectors.centres.centred(query[None, :])[0] + beta * centred.mean(axis=0)
    return _nearest_centred(db, vectors, moved / max(float(np.linalg.norm(moved)), 1e-12), k, candidates)


def _nearest_centred(
    db: sqlite3.Connection, vectors: VectorSet, centred_query: np.ndarray, k: int, candidates: int
) -> dict[int, float]:
    if len(vectors) > candidates:
        rows = hamming_candidates(vectors.bits, sign_bits(centred_query[None, :])[0], candidates, vectors.items)
    else:
        rows = np.argsort(vectors.items, kind="stable")
    rows, restored = restored_rows(db, vectors, rows)
    if not len(rows):
        return {}
    centred = vectors.centres.centred(restored, vectors.centre_of[rows], in_place=True)  # ``restored`` is ours
    scores = centred @ centred_query
    order = np.argsort(-scores, kind="stable")[:k]
    return {int(vectors.items[rows[i]]): float(scores[i]) for i in order}


def restored_rows(db: sqlite3.Connection, vectors: VectorSet, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """These rows' float32 vectors (not centred): from the mapped store where the view has one, else fetched
    from SQLite (then only the rows still in the index are returned, with their vectors)."""
    if vectors.mapped is not None and vectors.slots is not None and vectors.scales is not None:
        # the same int8 values and scales as the SQLite rows, restored by the same float32 arithmetic as ``restore``
        restored = store.gathered(vectors.mapped, vectors.slots[rows]).astype(np.float32)
        restored *= vectors.scales[rows][:, None]
        return rows, restored
    return _fetched(db, vectors, rows)


def _fetched(db: sqlite3.Connection, vectors: VectorSet, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ids = vectors.vector_ids[rows].tolist()  # plain ints: indexing numpy per candidate costs ms at 1500
    found = _fetch(db, vectors.table, ids)
    kept = [i for i, vector_id in enumerate(ids) if vector_id in found]
    if not kept:
        return rows[:0], np.zeros((0, vectors.dims), dtype=np.float32)
    blobs, scales = zip(*(found[ids[i]] for i in kept), strict=True)
    return rows[kept], restore(blobs, scales, vectors.dims)


HAMMING_BLOCK = 1 << 16  # rows per pass: a block's counts and distances stay in the cache (512 KB of xor-ed words)
WORDS_PER_BYTE_SUM = 3  # up to 3 x 64 = 192 differing bits: a sum of three words' counts fits a uint8


def hamming_candidates(bits: np.ndarray, query_bits: np.ndarray, count: int, items: np.ndarray) -> np.ndarray:
    """Rows of the ``count`` sign-bit vectors nearest to ``query_bits`` by Hamming distance, in the order of
    their ``items``.

    ``bits`` is word-major (words, n). Rows at the cut distance are taken in the order of their items, so the
    same index and query always give the same candidates, whatever the order of the rows (a view holds the
    summary rung's rows first: ``sentinel.search.view_rows.view_order``); the exact scores' ties are then broken
    by item too (``nearest`` sorts stably).
    """
    words, n = bits.shape
    top = words * 64
    distance = np.empty(n, dtype=np.uint16)
    counts = np.zeros(top + 1, dtype=np.int64)  # how many rows lie at each distance (up to ``bound``)
    xored = np.empty(min(n, HAMMING_BLOCK), dtype=np.uint64)
    ones = np.empty(len(xored), dtype=np.uint8)
    sums = [np.empty(len(xored), dtype=np.uint8) for _ in range(0, words, WORDS_PER_BYTE_SUM)]
    bound = top  # the cut is at most this: where the nearest ``count`` of the rows scanned so far end
    # block by block, every word of a block before the next: one pass per word over all rows wrote and re-read
    # 1M-row temporaries from memory, and a block's distances are counted while they are in the cache. Counts
    # are summed in bytes three words at a time, and past the first ``count`` rows only the distances within
    # ``bound`` are counted (no row beyond it can be a candidate). 1.05M rows: 8.0 -> 5.7 ms (docs/scale.md)
    for start in range(0, n, HAMMING_BLOCK):
        stop = min(n, start + HAMMING_BLOCK)
        xor, one = xored[: stop - start], ones[: stop - start]
        for group, total in enumerate(sums):
            part = total[: stop - start]
            first = group * WORDS_PER_BYTE_SUM
            for word in range(first, min(words, first + WORDS_PER_BYTE_SUM)):
                np.bitwise_xor(bits[word, start:stop], query_bits[word], out=xor)
                np.bitwise_count(xor, out=part if word == first else one)
                if word != first:
                    part += one
        block = distance[start:stop]
        if len(sums) > 1:
            np.add(sums[0][: stop - start], sums[1][: stop - start], out=block, dtype=np.uint16)
        else:
            block[:] = sums[0][: stop - start]
        for total in sums[2:]:
            block += total[: stop - start]
        counts += np.bincount(block[block <= bound] if bound < top else block, minlength=len(counts))
        if stop >= count:
            bound = int(np.searchsorted(np.cumsum(counts), count))
    # distances are small integers: their running count says where the nearest ``count`` end
    cut = int(np.searchsorted(np.cumsum(counts), count))
    rows = np.flatnonzero(distance <= cut)
    if len(rows) > count:  # rows at the cut beyond the ``count``-th are left out, those of the first items kept
        at_cut = distance[rows] == cut
        tied = rows[at_cut]
        room = count - (len(rows) - len(tied))
        rows = np.concatenate([rows[~at_cut], tied[np.argsort(items[tied], kind="stable")[:room]]])
    return rows[np.argsort(items[rows], kind="stable")]


def stored(db: sqlite3.Connection, table: str, ids: list[int]) -> dict[int, tuple[bytes, float]]:
    """The int8 BLOB and scale of each of ``ids`` in ``table`` (those still there)."""
    return _fetch(db, table, ids)


def _fetch(db: sqlite3.Connection, table: str, ids: list[int]) -> dict[int, tuple[bytes, float]]:
    found: dict[int, tuple[bytes, float]] = {}
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        for rowid, vec, scale in db.execute(f"SELECT id, vec, scale FROM {table} WHERE id IN ({marks})", batch):
            found[int(rowid)] = (vec, float(scale))
    return found
