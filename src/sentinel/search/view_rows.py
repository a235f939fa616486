"""The rows a search view holds, read for the whole index or for just some pages, and merged in place.

A view is updated by re-reading only the pages a generation's change log names (``search_changes``, see
``sentinel.index.migrations.m006_search_changes``): their rows are dropped from the arrays and read again.
The same reader builds the whole view, so a view kept up to date by many small updates holds exactly what
a full load would (tests/search/test_view.py compares them).
"""

from __future__ import annotations

import dataclasses
import functools
import sqlite3
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from sentinel.paths import SUMMARY_RUNG_ROLES
from sentinel.search import summaries
from sentinel.search.store import Appender, VectorStore, gathered
from sentinel.search.view_columns import Filling, id_dtype, ids_like
from sentinel.search.view_pages import Names, Pages
from sentinel.vault.hashes import passage_digest

BATCH = 500  # pages (or keys) per statement
FETCH = 16_384  # rows read at a time


def _roles() -> list[str]:
    return sorted(r.value for r in SUMMARY_RUNG_ROLES)


@dataclass(frozen=True)
class Table:
    """One vector table's rows as the view holds them, in ``view_order``: the summary rung's rows first, so its
    chunk set is a slice of the body rung's arrays, not a copy (46 bytes a chunk vector, ~440 MB at 1M pages)."""

    items: np.ndarray  # (n,) ids (``id_dtype``): chunk id, or page rowid for summaries
    vector_ids: np.ndarray  # (n,) ids
    centre_of: np.ndarray  # (n,) int16
    bits: np.ndarray  # (words, n) uint64
    page: np.ndarray  # (n,) ids: the page rowid each row belongs to
    summary_role: np.ndarray  # (n,) bool: the page's role takes part in the summary rung
    scale: np.ndarray  # (n,) float32: what the int8 vector is multiplied by
    slot: np.ndarray  # (n,) ids: the row's int8 vector in the view's store (-1 without one)

    @staticmethod
    def empty(words: int, ids: np.dtype) -> Table:
        return Table(**Filling(0, words, ids).filled())

    def __len__(self) -> int:
        return len(self.items)

    @functools.cached_property
    def summary_rows(self) -> int:
        """How many rows, from the first, belong to summary-rung pages."""
        return int(np.count_nonzero(self.summary_role))

    def rows_of_items(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each of ``wanted`` (chunk ids, or page rowids for summaries) is held, and whether it is: one
        binary search in each part of ``view_order``, each sorted by item."""
        at, held = np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
        for start, stop in ((0, self.summary_rows), (self.summary_rows, len(self))):
            part = self.items[start:stop]
            if not len(part):
                continue
            where = np.minimum(np.searchsorted(part, ids_like(part, wanted)), len(part) - 1)
            found = ~held & (part[where] == wanted)
            at[found], held = start + where[found], held | found
        return at, held

    def rows_of_pages(self, pages: np.ndarray) -> np.ndarray:
        """The rows (ascending) that belong to these page rowids: slices of the rows sorted by page, not a scan
        of every row (``np.isin`` over 950k rows cost 3.3 ms a query at 100k pages)."""
        order, sorted_pages = self._by_page
        pages = ids_like(sorted_pages, pages)
        starts = np.searchsorted(sorted_pages, pages, side="left")
        stops = np.searchsorted(sorted_pages, pages, side="right")
        if not len(pages):
            return order[:0]
        return np.sort(np.concatenate([order[a:b] for a, b in zip(starts.tolist(), stops.tolist(), strict=True)]))

    @functools.cached_property
    def _by_page(self) -> tuple[np.ndarray, np.ndarray]:
        # once per table: a view refreshed in place builds new tables (``without``, ``joined``), so this follows
        order = np.argsort(self.page, kind="stable").astype(self.page.dtype)  # rows fit the ids' dtype
        return order, self.page[order]

    def without(self, pages: np.ndarray) -> Table:
        keep = ~np.isin(self.page, pages)
        return self if keep.all() else self._take(keep)

    def _take(self, rows: np.ndarray) -> Table:
        return Table(
            self.items[rows],
            self.vector_ids[rows],
            self.centre_of[rows],
            np.ascontiguousarray(self.bits[:, rows]),
            self.page[rows],
            self.summary_role[rows],
            self.scale[rows],
            self.slot[rows],
        )

    def joined(self, other: Table) -> Table:
        if not len(other):
            return self
        if not len(self):
            return other
        both = Table(
            np.concatenate([self.items, other.items]),
            np.concatenate([self.vector_ids, other.vector_ids]),
            np.concatenate([self.centre_of, other.centre_of]),
            np.concatenate([self.bits, other.bits], axis=1),
            np.concatenate([self.page, other.page]),
            np.concatenate([self.summary_role, other.summary_role]),
            np.concatenate([self.scale, other.scale]),
            np.concatenate([self.slot, other.slot]),
        )
        return both._take(view_order(both.items, both.summary_role))

    def in_view_order(self) -> Table:
        """This table with its rows in ``view_order``, moved column by column in place (one column's worth of
        temporary memory, not a second table: at 1M pages the chunk table is ~700 MB)."""
        order = view_order(self.items, self.summary_role)
        if bool(np.all(order[1:] > order[:-1])):  # in order already (an ``arange`` to compare with: 84 MB at 1M)
            return self
        columns = (self.items, self.vector_ids, self.centre_of, self.page, self.summary_role, self.scale, self.slot)
        for column in columns:
            column[:] = column[order]
        for word in self.bits:
            word[:] = word[order]
        return self


def view_order(items: np.ndarray, summary_role: np.ndarray) -> np.ndarray:
    """The order of a table's rows: those of summary-rung pages first, each part sorted by item. The summary
    rung's chunk set is then the first rows of the body rung's (``sentinel.search.view``); a search breaks ties
    by item, not by row (``sentinel.search.vectors.nearest``), so both rungs rank as when all rows were in item
    order."""
    return np.lexsort((items, ~summary_role))


@dataclass(frozen=True)
class Rows:
    chunks: Table
    summaries: Table
    pages: Pages
    store: VectorStore | None  # where both tables' ``slot``s point

    def without(self, paths: set[str]) -> Rows:
        rowids = self.pages.rowids_of(sorted(paths))
        rowids = rowids[rowids >= 0]
        return Rows(self.chunks.without(rowids), self.summaries.without(rowids), self.pages.without(paths), self.store)

    def joined(self, other: Rows) -> Rows:
        return Rows(
            self.chunks.joined(other.chunks),
            self.summaries.joined(other.summaries),
            self.pages.joined(other.pages),
            self.store if self.store is other.store else None,
        )

    def compacted(self) -> Rows:
        """The same rows with their vectors copied, live rows only, into a new store beside the old one."""
        mapped = self.store.mapped() if self.store is not None else None
        if self.store is None or mapped is None:
            return self
        store = VectorStore.create_like(self.store)
        if store is None:
            return Rows(self.chunks, self.summaries, self.pages, None)
        tables = []
        for table in (self.chunks, self.summaries):
            first = store.append(gathered(mapped, table.slot).tobytes()) if len(table) else store.rows
            slot = np.arange(first, first + len(table), dtype=table.slot.dtype)
            tables.append(dataclasses.replace(table, slot=slot))
        return Rows(tables[0], tables[1], self.pages, store)


def read(
    db: sqlite3.Connection,
    words: int,
    with_summaries: bool,
    store: VectorStore | None,
    paths: Sequence[str] | None = None,
) -> Rows:
    """The rows of these pages (None: every page), their int8 vectors appended to ``store`` (None: no store).
    ``words`` is 0 while the index has no vectors; ``with_summaries`` is off while no summary vector exists (no
    summary passage is then worked out: a page's lead costs regular expressions, 1.9 s for 7,022 pages)."""
    appender = Appender(store)
    ids = id_dtype(_largest_id(db, store))
    if paths is None:
        rows = _read(db, words, with_summaries, "1", [], appender, ids)
    else:
        rows = Rows(Table.empty(words, ids), Table.empty(words, ids), Pages.empty(), store)
        for start in range(0, len(paths), BATCH):
            batch = list(paths[start : start + BATCH])
            marks = ",".join("?" * len(batch))
            rows = rows.joined(_read(db, words, with_summaries, f"p.path IN ({marks})", batch, appender, ids))
    appender.flush()
    return rows


def _largest_id(db: sqlite3.Connection, store: VectorStore | None) -> int:
    chunk, page, vector, summary = (
        int(v or 0)
        for v in db.execute(
            "SELECT (SELECT MAX(id) FROM chunks), (SELECT MAX(rowid) FROM pages), "
            "(SELECT MAX(id) FROM chunk_vectors), (SELECT MAX(id) FROM summary_vectors)"
        ).fetchone()
    )
    slots = (store.rows if store is not None else 0) + chunk + page  # a slot a chunk, and one a summary page
    return max(chunk, page, vector, summary, slots)


def _read(
    db: sqlite3.Connection,
    words: int,
    with_summaries: bool,
    where: str,
    params: list[str],
    appender: Appender,
    ids: np.dtype,
) -> Rows:
    roles = _roles()
    marks = ",".join("?" * len(roles))
    rowids, indexed_at, summary_role, paths = array("q"), array("d"), array("b"), Names()
    for rowid, path, at, summary in db.execute(
        f"SELECT p.rowid, p.path, p.indexed_at, p.role IN ({marks}) FROM pages p WHERE {where} ORDER BY p.rowid",
        [*roles, *params],
    ):
        rowids.append(rowid)
        paths.add(path)
        indexed_at.append(at)
        summary_role.append(summary)
    page_ids = np.frombuffer(rowids, dtype=np.int64)  # ascending
    counted = "chunks c" if where == "1" else f"chunks c JOIN pages p ON p.path = c.path WHERE {where}"
    chunks = Filling(int(db.execute(f"SELECT COUNT(*) FROM {counted}", params).fetchone()[0]), words, ids)
    vec = "v.vec" if appender.store is not None else "NULL"
    for batch in _batches(
        db,
        f"""SELECT p.rowid, p.role IN ({marks}), c.id, COALESCE(v.id, -1), v.centre, v.bits, v.scale, {vec}
            FROM chunks c JOIN pages p ON p.path = c.path
            LEFT JOIN chunk_vectors v ON v.text_hash = c.text_hash AND v.trail = c.trail
            WHERE {where} ORDER BY c.id""",
        [*roles, *params],
    ):
        page, vector_id = np.array(batch[0], dtype=ids), np.array(batch[3], dtype=np.int64)
        chunks.count(page, vector_id < 0)
        if words and (vector_id >= 0).any():
            if (vector_id < 0).any():
                batch = list(zip(*(row for row in zip(*batch, strict=True) if row[3] >= 0), strict=True))
            chunks.add(batch[2], batch[3], batch[4], batch[5], batch[0], batch[1], batch[6], appender.add(batch[7]))
    summary = np.frombuffer(summary_role, dtype=np.int8).astype(bool)
    passage = np.zeros(len(page_ids), dtype=np.int64)  # no summary vectors: summary-rung pages are only counted
    summary_table = Table.empty(words, ids)
    if with_summaries:
        passages = _Passages.read(db, f"p.role IN ({marks}) AND {where}", [*roles, *params], keep_texts=where != "1")
        at, held = _rows_of(page_ids, passages.pages)
        passage[at[held]] = passages.hashes[held]
        read = np.zeros(len(page_ids), dtype=bool)
        read[at[held]] = True
        summary &= read  # a summary-rung page is counted once its passage is read
        summary_table = _summary_table(db, passages, appender, words, ids) if words else summary_table
    with_chunks, counts, pending_pages = chunks.per_page()
    per_page = np.zeros(len(page_ids), dtype=np.int32)
    at, held = _rows_of(page_ids, with_chunks)
    per_page[at[held]] = counts[held]
    pages = Pages.of(page_ids, paths, per_page, summary, passage, {})
    at, held = _rows_of(page_ids, pending_pages)
    waiting = at[held].tolist()
    pending = dict(zip(pages.paths_at(waiting), (indexed_at[row] for row in waiting), strict=True))
    return Rows(
        Table(**chunks.filled()).in_view_order(),
        summary_table,
        dataclasses.replace(pages, pending=pending),
        appender.store,
    )


def _rows_of(ascending: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of ``wanted`` is in ``ascending``, and whether it is there."""
    if not len(ascending):
        return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
    at = np.minimum(np.searchsorted(ascending, wanted), len(ascending) - 1)
    return at, ascending[at] == wanted


def _batches(db: sqlite3.Connection, sql: str, params: Sequence[object]) -> Iterator[list[tuple]]:
    """The rows of ``sql`` as columns, ``FETCH`` rows at a time: the only Python objects made per row are those of
    one batch (at 9.5M chunks, a tuple a row held to the end cost several GB)."""
    cursor = db.cursor()
    cursor.row_factory = None  # plain tuples, not sqlite3.Row
    cursor.execute(sql, params)
    while rows := cursor.fetchmany(FETCH):
        yield list(zip(*rows, strict=True))


@dataclass(frozen=True)
class _Passages:
    """The summary passage of each summary-rung page, as the view needs it: its ``hash`` (what the change log's
    passages are matched by: ``pages_touched``) and a digest to find its stored vector by. Read a page at a time,
    so no passage outlives its page: at 1M pages a list of the 700k pages' summaries, held to the end, cost ~1 GB
    and left Python's object arenas fragmented (docs/scale.md, "Peak RSS at 1M")."""

    pages: np.ndarray  # (n,) int64 page rowids, in the order read
    hashes: np.ndarray  # (n,) int64: ``hash`` of each page's passage
    digests: np.ndarray  # (n,) S16: each page's passage's ``passage_digest``
    texts: list[str] | None  # the distinct passages, to read just their vectors; None: read every vector

    @staticmethod
    def read(db: sqlite3.Connection, where: str, params: Sequence[object], keep_texts: bool) -> _Passages:
        pages, hashes, digests, texts = array("q"), array("q"), bytearray(), set()
        for page in summaries.each_page_summary(db, where, params):
            passage = page.passage
            pages.append(page.page_id)
            hashes.append(hash(passage))
            digests += passage_digest(passage)
            if keep_texts:
                texts.add(passage)
        return _Passages(
            np.frombuffer(pages, dtype=np.int64),
            np.frombuffer(hashes, dtype=np.int64),
            np.frombuffer(bytes(digests), dtype="S16"),
            sorted(texts) if keep_texts else None,
        )


def _summary_table(db: sqlite3.Connection, passages: _Passages, appender: Appender, words: int, ids: np.dtype) -> Table:
    """The summary rows of these pages: the stored vector of each page's passage (pages sharing a passage share
    its vector), in ``view_order``."""
    order = np.argsort(passages.digests, kind="stable")
    digests, pages = passages.digests[order], passages.pages[order]
    filling = Filling(len(pages), words, ids)
    columns = "text, id, centre, bits, scale, " + ("vec" if appender.store is not None else "NULL")
    statements: list[tuple[str, list[str]]] = [(f"SELECT {columns} FROM summary_vectors", [])]
    if passages.texts is not None:  # only some pages' passages: their vectors only
        texts = passages.texts
        statements = [
            (f"SELECT {columns} FROM summary_vectors WHERE text IN ({','.join('?' * len(part))})", part)
            for part in (texts[start : start + BATCH] for start in range(0, len(texts), BATCH))
        ]
    for sql, params in statements if len(pages) else []:
        for text, vector_id, centre, bits, scale, int8 in _batches(db, sql, params):
            found = np.frombuffer(b"".join(passage_digest(t) for t in text), dtype="S16")
            first, stop = np.searchsorted(digests, found, "left"), np.searchsorted(digests, found, "right")
            shared = stop - first  # pages whose passage is this vector's text
            if not shared.any():
                continue
            row = np.repeat(np.arange(len(found)), shared).tolist()  # each page's vector, in the order read
            at = np.arange(int(shared.sum())) - np.repeat(np.cumsum(shared) - shared - first, shared)
            page_ids = pages[at]
            filling.add(
                page_ids,
                _picked(vector_id, row),
                _picked(centre, row),
                _picked(bits, row),
                page_ids,
                [True] * len(row),
                _picked(scale, row),
                appender.add(_picked(int8, row)),
            )
    return Table(**filling.filled()).in_view_order()


V = TypeVar("V")


def _picked(column: Sequence[V], rows: list[int]) -> list[V]:
    return [column[row] for row in rows]
