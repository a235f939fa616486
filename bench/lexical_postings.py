"""A prototype measured by bench/lexical_stage.py, not shipped: FTS5's bm25 computed in numpy over postings
held in memory, so a query of common words reads no doclist and calls no bm25 per chunk.

FTS5's ``bm25()`` (fts5_aux.c) with the default weights: for each phrase, ``idf = log((N - n + 0.5) / (n + 0.5))``
(1e-6 when not positive; ``n``: rows holding the phrase), and for a row of ``D`` tokens (every column) holding it
``tf`` times, ``idf * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * D / avgdl))`` summed over the phrases in query
order, negated. The same operations in the same order on float64 give the same values, so the same order with
ties by rowid; bench/lexical_stage.py checks the lists against the leg's.

What it would need to ship, and has not: keeping the postings and sizes current as the index changes (a write
moves N, avgdl and every idf; here everything is read once from an unchanging index), and bounding the memory
(the postings of every common term, sized by the bench).
"""

from __future__ import annotations

import math
import sqlite3
import time

import numpy as np

from sentinel.search.fts_query import Terms

K1 = 1.2  # FTS5's bm25 constants
B = 0.75


class MemoryPostings:
    """Each chunk's token count and, read on first use, each term's chunks and counts, from one index."""

    def __init__(self, db: sqlite3.Connection, sizes: dict[int, int]) -> None:
        self.db = db
        self.rows = len(sizes)
        top = max(sizes) + 1 if sizes else 1
        self.tokens = np.zeros(top, dtype=np.float64)  # by chunk id: a dense array, no search per query
        self.tokens[np.fromiter(sizes.keys(), dtype=np.int64)] = np.fromiter(sizes.values(), dtype=np.float64)
        self.average = float(self.tokens.sum()) / self.rows
        self.terms: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.read_seconds: list[float] = []
        db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_instances USING fts5vocab(main, chunks_fts, instance)"
        )

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        if term not in self.terms:
            started = time.perf_counter()
            rows = self.db.execute(
                "SELECT doc, count(*) FROM temp.chunks_instances WHERE term = ? GROUP BY doc ORDER BY doc", (term,)
            ).fetchall()
            found = np.array(rows, dtype=np.int64).reshape(-1, 2)
            self.terms[term] = (found[:, 0].copy(), found[:, 1].astype(np.float64))
            self.read_seconds.append(time.perf_counter() - started)
        return self.terms[term]

    def nbytes(self) -> int:
        return sum(ids.nbytes + counts.nbytes for ids, counts in self.terms.values()) + self.tokens.nbytes

    def ranked(self, words: list[str], limit: int, *, every: bool) -> list[int]:
        """Chunk ids matching ``words`` (all of them, or any), best bm25 first, ties by rowid: FTS5's
        ``MATCH ... ORDER BY rank, rowid LIMIT``."""
        lists = [self.postings(word) for word in words]
        score = np.zeros(len(self.tokens))
        hits = np.zeros(len(self.tokens), dtype=np.int8)
        for ids, counts in lists:
            if not len(ids):  # a word no chunk holds adds nothing to any score (FTS5 adds 0.0)
                continue
            idf = math.log((self.rows - len(ids) + 0.5) / (len(ids) + 0.5))
            idf = idf if idf > 0 else 1e-6
            length = self.tokens[ids]
            score[ids] += (idf * (counts * (K1 + 1.0))) / (counts + K1 * (1 - B + B * length / self.average))
            hits[ids] += 1
        found = np.flatnonzero(hits == len(lists) if every else hits > 0)
        if len(found) > limit:  # every chunk scoring at least the limit-th best, then FTS5's order among them
            kth = np.partition(-score[found], limit - 1)[limit - 1]
            found = found[-score[found] <= kth]
        best = np.lexsort((found, -score[found]))[:limit]
        return [int(c) for c in found[best]]

    def chunks(self, terms: Terms, limit: int) -> list[int]:
        """``lexical.lexical_chunks`` (no facets) computed from memory."""
        if not terms.words:
            return []
        if len(terms.common) < 2:
            return self.ranked(terms.words, limit, every=False)
        found = self.ranked(terms.common, limit, every=True)
        if len(found) < limit:
            seen = set(found)
            more = (c for c in self.ranked(terms.words, limit, every=False) if c not in seen)
            found += list(more)[: limit - len(found)]
        return found
