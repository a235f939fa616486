"""Held postings brought to a later state of the FTS table by the pages its change log names, not read again whole.

Reading every held word's doclist again after a write costs one core 9-11 s at 100k pages (13M pairs at about
1 us each), and a watcher's edits come one page at a time. The change log (``search_changes``, one row per
generation, written by the same triggers that write the FTS table's rows) names the pages whose chunks were
inserted or deleted since the held copy's generation. Chunks are only ever inserted or deleted (the FTS triggers
fire on nothing else), so the FTS rows that changed are exactly: the chunk ids gone from the table, and the ids of
the named pages' chunks now (a new chunk may take a gone one's id). Those are dropped from every held word's
postings and read again from a table of their own, built with the index's tokenizer from the same folded text the
triggers indexed.

A patch is made only when the log covers every generation since the copy was read; an FTS command with no logged
change ('rebuild', 'optimize', a refold: a bump without a row) reads everything again, as before. The result is
checked against FTS5's own totals (rows, tokens over all columns, each word's document frequency) and thrown away
on any difference, so a patched copy is FTS5's state or no copy at all.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

import numpy as np

from sentinel.index import fold
from sentinel.search.fts_query import document_frequencies

# Above this share of the chunks changed, reading every doclist again costs about what the patch would.
MAX_CHANGED_SHARE = 0.25
FRESH = "temp.held_patch_fts"
FRESH_INSTANCES = "temp.held_patch_instances"
BATCH = 500  # ids per ``IN (...)``: under SQLite's variable limit everywhere


@dataclass(frozen=True)
class Patched:
    rows: int
    average: float
    tokens: np.ndarray
    terms: dict[str, tuple[np.ndarray, np.ndarray]]


def patched(
    db: sqlite3.Connection,
    since: int,
    tokens: np.ndarray,
    terms: dict[str, tuple[np.ndarray, np.ndarray]],
    vocab: str,
) -> Patched | None:
    """``tokens`` and ``terms`` (read at generation ``since``) brought to the state ``db``'s open read transaction
    sees; None when the change log cannot say what changed, too much did, or the result is not FTS5's."""
    now = int(db.execute("SELECT n FROM search_generation").fetchone()[0])
    if now <= since:  # the FTS table was written with no generation moved: an FTS command, not a page
        return None
    logged = db.execute("SELECT path FROM search_changes WHERE gen > ? AND gen <= ?", (since, now)).fetchall()
    if len(logged) != now - since:  # a bump by code (refold, re-embed) or a pruned log: nothing says what changed
        return None
    live = np.fromiter((r[0] for r in db.execute("SELECT id FROM chunks_fts_docsize")), dtype=np.int64)
    if len(live) != _totals(db)[0]:
        return None
    paths = sorted({str(r[0]) for r in logged if r[0] is not None})
    changed = _ids_of(db, paths)
    size = max(len(tokens), int(live.max(initial=-1)) + 1)
    stale = np.ones(size, dtype=bool)
    stale[live] = False
    gone = np.flatnonzero(stale[: len(tokens)] & (tokens > 0))
    if len(changed) + len(gone) > MAX_CHANGED_SHARE * max(len(live), 1):
        return None
    stale[changed] = True
    fresh_tokens = np.zeros(size, dtype=tokens.dtype)
    fresh_tokens[: len(tokens)] = tokens
    fresh_tokens[stale] = 0
    counts = _fresh_counts(db, changed, list(terms))
    for chunk, total in _sizes_of(db, changed).items():
        fresh_tokens[chunk] = total
    rows, total_tokens = _totals(db)
    fresh_terms = {
        word: _merged(ids, word_counts, stale, counts.get(word)) for word, (ids, word_counts) in terms.items()
    }
    patch = Patched(rows, total_tokens / rows if rows else 0.0, fresh_tokens, fresh_terms)
    return patch if agrees_with_fts5(db, patch, vocab) else None


def agrees_with_fts5(db: sqlite3.Connection, patch: Patched, vocab: str) -> bool:
    """Whether ``patch`` has FTS5's own figures for the state ``db`` reads: its rows, its tokens over all
    columns, and each held word's rows (FTS5 keeps these three; a word's count in a chunk it does not)."""
    rows, total_tokens = _totals(db)
    if patch.rows != rows or int(np.count_nonzero(patch.tokens)) > rows:
        return False
    if int(patch.tokens.sum(dtype=np.int64)) != total_tokens:
        return False
    frequencies = document_frequencies(db, vocab, list(patch.terms))
    return all(len(ids) == frequencies.get(word, 0) for word, (ids, _) in patch.terms.items())


def _ids_of(db: sqlite3.Connection, paths: list[str]) -> np.ndarray:
    found: list[int] = []
    for start in range(0, len(paths), BATCH):
        batch = paths[start : start + BATCH]
        marks = ",".join("?" * len(batch))
        found.extend(r[0] for r in db.execute(f"SELECT id FROM chunks WHERE path IN ({marks})", batch))
    return np.array(sorted(found), dtype=np.int64)


def _sizes_of(db: sqlite3.Connection, ids: np.ndarray) -> dict[int, int]:
    """Each chunk's tokens over all columns, from FTS5's docsize rows (SQLite varints, one a column)."""
    sizes: dict[int, int] = {}
    listed = [int(i) for i in ids]
    for start in range(0, len(listed), BATCH):
        batch = listed[start : start + BATCH]
        marks = ",".join("?" * len(batch))
        for chunk, blob in db.execute(f"SELECT id, sz FROM chunks_fts_docsize WHERE id IN ({marks})", batch):
            sizes[int(chunk)] = sum(_varints(bytes(blob)))
    return sizes


def _totals(db: sqlite3.Connection) -> tuple[int, int]:
    """FTS5's averages record: its row count and tokens over all columns, as bm25 reads them."""
    record = db.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    if record is None:
        return 0, 0
    values = _varints(bytes(record[0]))
    return values[0], sum(values[1:])


def _varints(data: bytes) -> list[int]:
    values, value = [], 0
    for byte in data:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            values.append(value)
            value = 0
    return values


def _fresh_counts(db: sqlite3.Connection, ids: np.ndarray, words: list[str]) -> dict[str, dict[int, int]]:
    """Each of ``words``' count in each chunk of ``ids``, tokenised as the index tokenised them: the chunks'
    folded text put in a table with the index's own tokenizer."""
    fold.register(db)
    db.execute(f"DROP TABLE IF EXISTS {FRESH}")
    db.execute(f"CREATE VIRTUAL TABLE {FRESH} USING fts5(text, trail, tokenize={_tokenizer(db)})")
    db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {FRESH_INSTANCES} USING fts5vocab(temp, held_patch_fts, instance)")
    try:
        listed = [int(i) for i in ids]
        for start in range(0, len(listed), BATCH):
            batch = listed[start : start + BATCH]
            marks = ",".join("?" * len(batch))
            db.execute(
                f"INSERT INTO {FRESH}(rowid, text, trail) SELECT id, {fold.chunk_fold('text')}, "
                f"{fold.chunk_fold('trail')} FROM chunks WHERE id IN ({marks})",
                batch,
            )
        counts: dict[str, dict[int, int]] = {}
        for start in range(0, len(words), BATCH):
            asked = words[start : start + BATCH]
            marks = ",".join("?" * len(asked))
            query = f"SELECT term, doc, count(*) FROM {FRESH_INSTANCES} WHERE term IN ({marks}) GROUP BY term, doc"
            for term, doc, count in db.execute(query, asked):
                counts.setdefault(str(term), {})[int(doc)] = int(count)
        return counts
    finally:
        db.execute(f"DROP TABLE IF EXISTS {FRESH_INSTANCES}")
        db.execute(f"DROP TABLE IF EXISTS {FRESH}")


def _tokenizer(db: sqlite3.Connection) -> str:
    """The ``tokenize`` option the index's FTS table was made with (as its schema stores it), quoted for SQL."""
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()[0]
    found = re.search(r"tokenize\s*=\s*('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")", sql)
    return found.group(1) if found else "'unicode61'"


def _merged(
    ids: np.ndarray, counts: np.ndarray, stale: np.ndarray, fresh: dict[int, int] | None
) -> tuple[np.ndarray, np.ndarray]:
    """A word's postings with the stale chunks dropped and their fresh counts added, ids ascending, each array in
    the narrowest type that holds it (as ``doclists.read`` reads them)."""
    kept = ~stale[ids]
    added = sorted((fresh or {}).items())
    all_ids = np.concatenate([ids[kept].astype(np.int64), np.array([i for i, _ in added], dtype=np.int64)])
    all_counts = np.concatenate([counts[kept].astype(np.int64), np.array([c for _, c in added], dtype=np.int64)])
    order = np.argsort(all_ids, kind="stable")
    all_ids, all_counts = all_ids[order], all_counts[order]
    return all_ids.astype(np.min_scalar_type(int(all_ids.max(initial=0)))), all_counts.astype(
        np.min_scalar_type(int(all_counts.max(initial=0)))
    )
