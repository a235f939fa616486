"""The lexical leg's rankings computed from postings held in memory, exactly as FTS5 ranks them.

FTS5 ranks every chunk that matches a query at about 3 us each (the docsize lookup and the instance count), so a
query of common words at 100k pages spends 170-330 ms in ``bm25()``, and one of a word in 20k chunks 60 ms. Held
here, per index file and search process: each chunk's token count (by chunk id) and, for the words in more than
``MIN_HELD_ROWS`` chunks that queries asked for, each word's chunks and counts, all read in one snapshot together
with the FTS table's own state (``fts_state``). A query's rarer words are read on the fly (``Ranking``). A query
is served from them only while the table is still in that state; otherwise (and for facets, words not held yet)
it takes FTS5's own path, and asking wakes one background thread that brings the copy current: patched from the
change log where the log says what changed (``sentinel.search.held_patch``), else read again whole. So a served answer
is always the one FTS5 gives to the snapshot the query read: same chunks, same order. Writes that leave the FTS
table alone (vectors, summaries, analysis: most writes while a big vault is embedding) leave the copy current.

The score is FTS5's ``bm25()`` (fts5_aux.c) with the default weights: per phrase, in query order,
``idf = log((N - n + 0.5) / (n + 0.5))`` (1e-6 when not positive; ``n``: rows holding it) and, for a row of
``D`` tokens (all columns) holding it ``tf`` times, ``idf * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * D / avgdl))``
summed, negated; the same float64 operations in the same order give the same values, so the same order with
ties by rowid (tests/search/test_postings.py compares the lists; bench/lexical_stage.py at 10k and 100k pages).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sqlite3
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sentinel.search import doclists, freed, held_patch
from sentinel.search.fts_query import document_frequencies, quote
from sentinel.search.view import index_file

log = logging.getLogger(__name__)

K1 = 1.2  # FTS5's bm25 constants
B = 0.75

# A word in at most this many chunks is not held: a query that needs it reads its doclist on the fly (FTS5's
# instance table, about 1 us a row) and scores it with the held token counts, where FTS5's bm25 costs 3-4 us a row.
MIN_HELD_ROWS = 2_000
SPARSE_SHARE = 0.125  # a ranking of fewer pairs than this share of the chunks scores the matched chunks only
SCORE_BLOCK = 1 << 18  # a word's pairs scored at a time (``Held.scored``)
PICK_BLOCK = 1 << 18  # chunks whose scores are looked through at a time for the best (``_best``)
MAX_KNOWN = 65_536  # document frequencies remembered per index (all forgotten when more come)
VOCAB = "chunks_vocab"  # FTS5's row vocabulary: each word's document frequency

# Postings held per index, at most. Every word in more than 8% of the chunks at 100k synthetic pages is 66 words
# and 13.1M (chunk, count) pairs, 66-79 MB as held here (int32 ids, one- or two-byte counts): this holds them all
# with room to spare, and at 1M pages the most recently asked words that fit (a tenth of the pairs each). (Sized
# at round eight's share of all chunks; since round nine a word is common at 12% of its language's chunks, which
# in a four-language vault is about 3% of all: not measured again at 100k.)
BUDGET_BYTES = 128 * 2**20
PAIR_BYTES = 6  # the estimate a word's pairs are budgeted at before they are read

READER_NICE = 19  # the background reader's thread runs at the lowest priority (Linux: a thread is a task)
MAX_ASKED = 4096  # words remembered as asked for, per index (the oldest are forgotten first)

FTS_DATA = "chunks_fts_data"  # FTS5's shadow table of the index: its segments' pages and the two records below

# Which path ranked each call, "memory" or "fts5", and "read": the memory rankings that read a doclist on the fly
SERVED: Counter[str] = Counter()
# How each held copy behind the FTS table was made current: "patched" from the change log or read "whole" again
READS: Counter[str] = Counter()


@dataclass(frozen=True)
class Held:
    """What was read in one state of the FTS table: every chunk's token count and some words' postings."""

    state: tuple[bytes, ...]  # ``fts_state`` when read
    generation: int  # ``search_generation`` when read: where the change log is followed from (``held_patch``)
    rows: int  # chunks in the FTS table (FTS5's N)
    average: float  # tokens a chunk, over all columns (FTS5's avgdl)
    tokens: np.ndarray  # by chunk id: tokens over all columns
    terms: dict[str, tuple[np.ndarray, np.ndarray]]  # word: (chunk ids ascending, counts)
    passed: frozenset[str]  # words looked up in this state and not held (too rare, or over the budget)

    def nbytes(self) -> int:
        return self.tokens.nbytes + sum(ids.nbytes + counts.nbytes for ids, counts in self.terms.values())

    def ranked(self, words: list[str], limit: int, *, every: bool) -> list[int] | None:
        """Chunk ids matching ``words`` (all of them, or any), best bm25 first, ties by rowid, as FTS5's
        ``MATCH ... ORDER BY rank, rowid LIMIT`` returns them; None when a word is not held."""
        found = self.ranked_scores(words, limit, every=every)
        return None if found is None else list(found)

    def ranked_scores(self, words: list[str], limit: int, *, every: bool) -> dict[int, float] | None:
        """``ranked`` with each chunk's bm25 score (higher is better: FTS5's ``rank`` negated)."""
        if any(word not in self.terms for word in words):
            return None
        return self.scored([self.terms[word] for word in words], limit, every=every)

    def scored(self, lists: list[tuple[np.ndarray, np.ndarray]], limit: int, *, every: bool) -> dict[int, float]:
        """``ranked`` over the words' postings (chunk ids ascending, counts), in query order: held, or read
        on the fly in this same state of the table. Each chunk's score adds the words' parts in query order,
        as FTS5 does, into one slot per chunk, or, for fewer pairs than ``SPARSE_SHARE`` of the chunks, one
        slot per matched chunk (no pass over every chunk)."""
        chunks: np.ndarray | None = None
        slots = [ids for ids, _ in lists]
        if sum(len(ids) for ids in slots) < SPARSE_SHARE * len(self.tokens):
            every_id = np.sort(np.concatenate(slots))
            chunks = every_id[np.concatenate(([True], every_id[1:] != every_id[:-1]))] if len(every_id) else every_id
            slots = [np.searchsorted(chunks, ids) for ids in slots]
        size = len(self.tokens) if chunks is None else len(chunks)
        score = np.zeros(size)
        narrow = len(lists) <= np.iinfo(np.int8).max  # a count of words a chunk: one byte (10 MB less at 1M pages)
        hits: np.ndarray = np.zeros(size, dtype=np.int8 if narrow else np.int16)
        for (ids, counts), slot in zip(lists, slots, strict=True):
            idf = math.log((self.rows - len(ids) + 0.5) / (len(ids) + 0.5))
            idf = idf if idf > 0 else 1e-6
            # ``SCORE_BLOCK`` pairs at a time, the same operations on each: a common word's pairs all at once (7.3M
            # at 1M pages) held several float64 temporaries of 58 MB each
            for start in range(0, len(ids), SCORE_BLOCK):
                part = slice(start, start + SCORE_BLOCK)
                at = slot[part].astype(np.intp)  # numpy gathers int32 indexes ~10x slower
                tf = counts[part].astype(np.float64)
                length = self.tokens[ids[part].astype(np.intp)].astype(np.float64)
                score[at] += (idf * (tf * (K1 + 1.0))) / (tf + K1 * (1 - B + B * length / self.average))
                hits[at] += 1
        return _best(score, hits, len(lists) if every else 1, chunks, limit)


def _best(score: np.ndarray, hits: np.ndarray, least: int, chunks: np.ndarray | None, limit: int) -> dict[int, float]:
    """The chunk ids (with their scores) of the ``limit`` best scores among the slots of at least ``least`` hits,
    ties by chunk id. ``PICK_BLOCK`` slots at a time, each block's own ``limit`` best kept (the overall best of its
    chunks are among them): at 1M pages a common word's matches all at once held three float64 or int64 arrays of
    58 MB each (docs/scale.md, "Stop 47: memory at 1M")."""
    found_parts, negated_parts = [], []
    for start in range(0, len(score), PICK_BLOCK):
        matched = start + np.flatnonzero(hits[start : start + PICK_BLOCK] >= least)
        found, negated = _candidates(matched if chunks is None else chunks[matched], -score[matched], limit)
        found_parts.append(found)
        negated_parts.append(negated)
    if not found_parts:
        return {}
    found, negated = _candidates(np.concatenate(found_parts), np.concatenate(negated_parts), limit)
    best = np.lexsort((found, negated))[:limit]
    return dict(zip(found[best].tolist(), (-negated[best]).tolist(), strict=True))


def _candidates(found: np.ndarray, negated: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``limit`` best of these chunks (``found`` ascending) in FTS5's order, best score then lowest id, in
    ``found``'s order: those above the ``limit``-th score, then the lowest ids of those at it."""
    if len(found) <= limit or limit <= 0:
        return (found, negated) if limit > 0 else (found[:0], negated[:0])
    cut = np.partition(negated, limit - 1)[limit - 1]
    kept = negated < cut
    kept[np.flatnonzero(negated == cut)[: limit - int(np.count_nonzero(kept))]] = True
    return found[kept], negated[kept]


@dataclass
class Ranking:
    """What one query is ranked from without FTS5's bm25: the held postings, and the doclists of its rare words
    (in at most ``MIN_HELD_ROWS`` chunks) read on the fly, each checked to be of the held copy's state."""

    db: sqlite3.Connection
    held: Held
    frequencies: dict[str, int]  # the query's words' document frequencies (which words may be read on the fly)
    read: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def ranked(self, words: list[str], limit: int, *, every: bool) -> list[int] | None:
        """``Held.ranked`` with the rare words read on the fly (``ranked_scores``)."""
        found = self.ranked_scores(words, limit, every=every)
        return None if found is None else list(found)

    def ranked_scores(self, words: list[str], limit: int, *, every: bool) -> dict[int, float] | None:
        """``Held.ranked_scores`` with the rare words read on the fly; None when a word is neither held nor rare (not
        read yet, over the budget), is no token of the index yet FTS5 matches it (as a phrase of several
        tokens), or the table was written since the copy was read."""
        lists = []
        fresh = False
        for word in words:
            found = self.held.terms.get(word) or self.read.get(word)
            if found is None:
                rows = self.frequencies.get(word, 0)
                if rows > MIN_HELD_ROWS:
                    return None
                found = doclists.read(self.db, word) if rows else _nothing_matched(self.db, word)
                if found is None:
                    return None
                self.read[word] = found
                fresh = True
            lists.append(found)
        # FTS5 writes the structure record at the end of every transaction that writes the table, its counter
        # moved: the same state before (``held_for``) and after these reads is the state they read.
        if fresh and fts_state(self.db) != self.held.state:
            return None
        if fresh:
            SERVED["read"] += 1
        return self.held.scored(lists, limit, every=every)


_held: dict[str, Held] = {}
_known: dict[str, tuple[tuple[bytes, ...], dict[str, int]]] = {}
_asked: dict[str, OrderedDict[str, None]] = {}
_readers: dict[str, threading.Thread] = {}
_again: set[str] = set()
_lock = threading.Lock()


def fts_state(db: sqlite3.Connection) -> tuple[bytes, ...]:
    """The state of the FTS table that bm25 reads, as a key: its averages record (``%_data`` id 1: rows and
    token totals per column) and structure record (id 10: the segments, a write counter and the config cookie).
    FTS5 (fts5_index.c) writes the structure at the end of every transaction that writes the table (an insert,
    a delete, 'rebuild', 'delete-all', 'optimize', 'merge', an automerge): a new segment and the counter moved,
    or segments merged; an 'optimize' or 'merge' with nothing to merge leaves it, and the content, as it was.
    A transaction that writes nothing to the table writes neither record. One gap: 'rebuild' and
    'delete-all' start the structure over (one segment, counter 1), so a refill could repeat an earlier state
    to the byte when the row and token totals are the same too; ``fold.rebuild_fts`` (the only refill the
    project makes) bumps the config cookie, which the structure record carries across the reset."""
    rows = db.execute(f"SELECT block FROM {FTS_DATA} WHERE id IN (1, 10) ORDER BY id").fetchall()
    return tuple(bytes(r[0]) for r in rows)


def frequencies(db: sqlite3.Connection, words: list[str]) -> dict[str, int]:
    """How many chunks hold each of ``words`` (0: not a token of the index), from FTS5's vocab table and remembered
    per index and state of the FTS table: FTS5 counts a word's chunks by walking its whole doclist (a common word's
    at 100k pages: several ms)."""
    path = index_file(db)
    now = fts_state(db) if path else None
    with _lock:
        state, known = _known.get(path, (None, {}))
        found = {w: known[w] for w in words if w in known} if state == now and now is not None else {}
    missing = [w for w in words if w not in found]
    if missing:
        counted = document_frequencies(db, VOCAB, missing)
        found.update((w, counted.get(w, 0)) for w in missing)
        if now is not None and fts_state(db) == now:  # no write between: these counts are of that state
            with _lock:
                state, known = _known.get(path, (None, {}))
                if state != now or len(known) + len(missing) > MAX_KNOWN:
                    known = {}
                known.update((w, found[w]) for w in missing)
                _known[path] = (now, known)
    return {w: found[w] for w in words}


def ranking_for(db: sqlite3.Connection, words: list[str], frequencies: dict[str, int]) -> Ranking | None:
    """The postings to rank a query of ``words`` from, when held for the FTS table's current state; asks for its
    words in more than ``MIN_HELD_ROWS`` chunks to be held."""
    held = held_for(db, [w for w in words if frequencies.get(w, 0) > MIN_HELD_ROWS])
    return Ranking(db, held, frequencies) if held is not None else None


def held_for(db: sqlite3.Connection, words: list[str]) -> Held | None:
    """The postings held for this index if they are of the FTS table's current state, else None; asks for ``words``
    (common ones) to be read when they are not held or the held copy is behind (read off the query path)."""
    path = index_file(db)
    if not path:  # an in-memory database: nothing to key on, never held
        return None
    now = fts_state(db)
    held = _held.get(path)
    current = held if held is not None and held.state == now else None
    if current is None or any(w not in current.terms and w not in current.passed for w in words):
        ask(path, words)
    return current


def ask(path: str, words: list[str]) -> None:
    """Remember ``words`` as asked for and make sure a reader brings the held postings current."""
    with _lock:
        asked = _asked.setdefault(path, OrderedDict())
        for word in words:
            asked[word] = None
            asked.move_to_end(word)
        while len(asked) > MAX_ASKED:
            asked.popitem(last=False)
        reader = _readers.get(path)
        if reader is not None and reader.is_alive():  # not alive: a thread of the process this one forked from
            _again.add(path)
            return
        reader = threading.Thread(target=_keep_current, args=(path,), name="sentinel-postings", daemon=True)
        _readers[path] = reader
        reader.start()


def settle(timeout: float | None = None) -> None:
    """Wait for every reader to finish (tests and benches: a search never waits)."""
    while True:
        with _lock:
            readers = [r for r in _readers.values() if r.is_alive()]
        if not readers:
            return
        for reader in readers:
            reader.join(timeout)


def forget() -> None:
    """Drop everything held and asked for (tests start from nothing)."""
    settle()
    with _lock:
        _held.clear()
        _asked.clear()
        _known.clear()


def held_bytes() -> int:
    return sum(held.nbytes() for held in _held.values())


def _keep_current(path: str) -> None:
    with contextlib.suppress(OSError):  # the reader yields the CPU to the queries that are waiting on it
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), READER_NICE)
    while True:
        with _lock:
            _again.discard(path)
            asked = list(reversed(_asked.get(path, {})))  # the most recently asked first: they win the budget
            old = _held.get(path)
        try:
            held = read_held(path, asked, old)
            freed.give_back()  # the read's batches (token counts of every chunk, a word's instances)
        except sqlite3.Error as error:  # the index moved or went away: queries keep FTS5's path
            log.warning("postings for %s not read: %s", path, error)
            held = None
        with _lock:
            if held is not None:
                _held[path] = held
            if path not in _again:
                _readers.pop(path, None)
                return


def read_held(path: str, asked: list[str], old: Held | None) -> Held:
    """The held postings of the FTS table's current state, read in one snapshot on a connection of its own;
    ``old``'s words are kept as they are when it is of that state already."""
    # ``mode=rw``: an index file removed meanwhile is an error here, never created again empty.
    db = sqlite3.connect(Path(path).as_uri() + "?mode=rw", uri=True, check_same_thread=False)
    try:
        db.execute(doclists.INSTANCES_TABLE)
        db.execute("BEGIN")  # one read snapshot: the state, the sizes and the postings agree
        now = fts_state(db)
        same = old is not None and old.state == now
        generation = int(db.execute("SELECT n FROM search_generation").fetchone()[0])
        patch = None if old is None or same else held_patch.patched(db, old.generation, old.tokens, old.terms, VOCAB)
        if old is not None and same:
            rows, average, tokens, terms = old.rows, old.average, old.tokens, dict(old.terms)
        elif patch is not None:
            rows, average, tokens, terms = patch.rows, patch.average, patch.tokens, patch.terms
            READS["patched"] += 1
        else:
            rows, average, tokens = doclists.token_counts(db)
            terms = {}
            READS["whole"] += 1
        passed = set(old.passed) if old is not None and same else set()
        # Only the words not looked up in this state yet: FTS5 counts a common word's rows by walking its doclist.
        needed = [w for w in asked if w not in terms and w not in passed]
        frequencies = document_frequencies(db, VOCAB, needed)
        used = tokens.nbytes + sum(ids.nbytes + counts.nbytes for ids, counts in terms.values())
        for word in needed:
            rows_of_word = frequencies.get(word, 0)
            if rows_of_word <= MIN_HELD_ROWS or used + rows_of_word * PAIR_BYTES > BUDGET_BYTES:
                passed.add(word)
                continue
            ids, counts = doclists.read(db, word)
            terms[word] = (ids, counts)
            used += ids.nbytes + counts.nbytes
        db.execute("COMMIT")
    finally:
        db.close()
    return Held(now, generation, rows, average, tokens, terms, frozenset(passed))


def _nothing_matched(db: sqlite3.Connection, word: str) -> tuple[np.ndarray, np.ndarray] | None:
    """No postings, when FTS5 matches no chunk to ``word`` (a word the index lacks: bm25 adds 0.0 for it to every
    chunk's score, and an AND of it matches nothing); None when it matches some as it tokenises the word."""
    if db.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (quote(word),)).fetchone():
        return None
    return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint8)
