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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from sentinel.paths import SUMMARY_RUNG_ROLES
from sentinel.search import summaries
from sentinel.search.store import Appender, VectorStore

BATCH = 500  # pages (or keys) per statement


def _roles() -> list[str]:
    return sorted(r.value for r in SUMMARY_RUNG_ROLES)


@dataclass(frozen=True)
class Table:
    """One vector table's rows as the view holds them, sorted by item."""

    items: np.ndarray  # (n,) int64: chunk id, or page rowid for summaries
    vector_ids: np.ndarray  # (n,) int64
    centre_of: np.ndarray  # (n,) int16
    bits: np.ndarray  # (words, n) uint64
    page: np.ndarray  # (n,) int64: the page rowid each row belongs to
    summary_role: np.ndarray  # (n,) bool: the page's role takes part in the summary rung
    scale: np.ndarray  # (n,) float32: what the int8 vector is multiplied by
    slot: np.ndarray  # (n,) int64: the row's int8 vector in the view's store (-1 without one)

    @staticmethod
    def empty(words: int) -> Table:
        none = np.zeros(0, dtype=np.int64)
        return Table(
            none,
            none,
            none.astype(np.int16),
            np.zeros((words, 0), np.uint64),
            none,
            none.astype(bool),
            none.astype(np.float32),
            none,
        )

    def __len__(self) -> int:
        return len(self.items)

    def rows_of_pages(self, pages: np.ndarray) -> np.ndarray:
        """The rows (ascending) that belong to these page rowids: slices of the rows sorted by page, not a scan
        of every row (``np.isin`` over 950k rows cost 3.3 ms a query at 100k pages)."""
        order, sorted_pages = self._by_page
        starts = np.searchsorted(sorted_pages, pages, side="left")
        stops = np.searchsorted(sorted_pages, pages, side="right")
        if not len(pages):
            return order[:0]
        return np.sort(np.concatenate([order[a:b] for a, b in zip(starts.tolist(), stops.tolist(), strict=True)]))

    @functools.cached_property
    def _by_page(self) -> tuple[np.ndarray, np.ndarray]:
        # once per table: a view refreshed in place builds new tables (``without``, ``joined``), so this follows
        order = np.argsort(self.page, kind="stable")
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
        return both._take(np.argsort(both.items, kind="stable"))


@dataclass(frozen=True)
class Pages:
    """What the view knows of each indexed page, to count and to update."""

    rowid_of: dict[str, int]
    chunks_of: dict[str, int]  # chunks of each page, with or without a vector
    pending: dict[str, float]  # pages with a chunk that has no vector yet: when each was indexed
    passage_of: dict[str, int]  # summary-rung pages: hash of the passage their summary vector embeds

    @functools.cached_property
    def path_of(self) -> dict[int, str]:
        """Each page's path by rowid (once per view: a refresh makes new ``Pages``)."""
        return {rowid: path for path, rowid in self.rowid_of.items()}

    def without(self, paths: Iterable[str]) -> Pages:
        gone = list(paths)
        return Pages(
            _drop(self.rowid_of, gone),
            _drop(self.chunks_of, gone),
            _drop(self.pending, gone),
            _drop(self.passage_of, gone),
        )

    def joined(self, other: Pages) -> Pages:
        return Pages(
            self.rowid_of | other.rowid_of,
            self.chunks_of | other.chunks_of,
            self.pending | other.pending,
            self.passage_of | other.passage_of,
        )


V = TypeVar("V")


def _drop(part: dict[str, V], gone: list[str]) -> dict[str, V]:
    kept = dict(part)  # a copy: a query may still be reading the view this one replaces
    for path in gone:
        kept.pop(path, None)
    return kept


@dataclass(frozen=True)
class Rows:
    chunks: Table
    summaries: Table
    pages: Pages
    store: VectorStore | None  # where both tables' ``slot``s point

    def without(self, paths: set[str]) -> Rows:
        rowids = np.array([self.pages.rowid_of[p] for p in paths if p in self.pages.rowid_of], dtype=np.int64)
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
            first = store.append(mapped[table.slot].tobytes()) if len(table) else store.rows
            slot = np.arange(first, first + len(table), dtype=np.int64)
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
    if paths is None:
        rows = _read(db, words, with_summaries, "1", [], appender)
    else:
        rows = Rows(Table.empty(words), Table.empty(words), Pages({}, {}, {}, {}), store)
        for start in range(0, len(paths), BATCH):
            batch = list(paths[start : start + BATCH])
            marks = ",".join("?" * len(batch))
            rows = rows.joined(_read(db, words, with_summaries, f"p.path IN ({marks})", batch, appender))
    appender.flush()
    return rows


def _read(
    db: sqlite3.Connection, words: int, with_summaries: bool, where: str, params: list[str], appender: Appender
) -> Rows:
    roles = _roles()
    marks = ",".join("?" * len(roles))
    path_of: dict[int, str] = {}
    rowid_of: dict[str, int] = {}
    indexed_at: dict[int, float] = {}
    summary_pages: list[str] = []
    for rowid, path, at, summary_role in db.execute(
        f"SELECT p.rowid, p.path, p.indexed_at, p.role IN ({marks}) FROM pages p WHERE {where}", [*roles, *params]
    ):
        path_of[rowid], rowid_of[path], indexed_at[rowid] = path, rowid, at
        if summary_role:
            summary_pages.append(path)
    page_of_chunk: list[int] = []
    vector_of_chunk: list[int] = []
    embedded: list[tuple] = []
    vec = "v.vec" if appender.store is not None else "NULL"  # read one by one into the store, never all held
    for rowid, summary_role, chunk_id, vector_id, centre, bits, scale, int8 in db.execute(
        f"""SELECT p.rowid, p.role IN ({marks}), c.id, COALESCE(v.id, -1), v.centre, v.bits, v.scale, {vec}
            FROM chunks c JOIN pages p ON p.path = c.path
            LEFT JOIN chunk_vectors v ON v.text_hash = c.text_hash AND v.trail = c.trail
            WHERE {where} ORDER BY c.id""",
        [*roles, *params],
    ):
        page_of_chunk.append(rowid)
        vector_of_chunk.append(vector_id)
        if vector_id >= 0 and words:
            embedded.append((chunk_id, vector_id, centre, bits, rowid, bool(summary_role), scale, appender.add(int8)))
    page = np.array(page_of_chunk, dtype=np.int64)
    vector_id = np.array(vector_of_chunk, dtype=np.int64)
    chunks_per_page = dict(zip(*np.unique(page, return_counts=True), strict=True))
    pending_pages = set(np.unique(page[vector_id < 0]).tolist())
    chunk_table = _table(words, embedded)
    passage_of: dict[str, int] = dict.fromkeys(summary_pages, 0)  # no summary vectors: pages are only counted
    passages: list[summaries.PageSummary] = []
    if with_summaries:
        passages = summaries.page_summaries(db, f"p.role IN ({marks}) AND {where}", [*roles, *params])
        passage_of = {page.path: hash(page.passage) for page in passages}
    summary_table = _table(words, _summary_rows(db, passages, where == "1", appender) if words else [])
    return Rows(
        chunk_table,
        summary_table,
        Pages(
            rowid_of,
            {path_of[int(rowid)]: int(n) for rowid, n in chunks_per_page.items()},
            {path_of[rowid]: indexed_at[rowid] for rowid in pending_pages},
            passage_of,
        ),
        appender.store,
    )


def _summary_rows(
    db: sqlite3.Connection, passages: list[summaries.PageSummary], everything: bool, appender: Appender
) -> list[tuple]:
    columns = "text, id, centre, bits, scale, " + ("vec" if appender.store is not None else "NULL")
    if everything:
        stored = {r[0]: r[1:] for r in db.execute(f"SELECT {columns} FROM summary_vectors")}
    else:
        stored = {}
        texts = sorted({page.passage for page in passages})
        for start in range(0, len(texts), BATCH):
            batch = texts[start : start + BATCH]
            where = f"text IN ({','.join('?' * len(batch))})"
            stored.update(
                (r[0], r[1:]) for r in db.execute(f"SELECT {columns} FROM summary_vectors WHERE {where}", batch)
            )
    rows = []
    for page in passages:
        if page.passage in stored:
            vector_id, centre, bits, scale, int8 = stored[page.passage]
            rows.append((page.page_id, vector_id, centre, bits, page.page_id, True, scale, appender.add(int8)))
    return sorted(rows, key=lambda r: r[0])


def _table(words: int, rows: list[tuple]) -> Table:
    """Rows of (item, vector id, centre, bits, page rowid, summary role, scale, store slot), in item order."""
    if not rows:
        return Table.empty(words)
    rows.sort(key=lambda r: r[0])
    n = len(rows)
    bits = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.uint64).reshape(n, words)
    return Table(
        items=np.fromiter((r[0] for r in rows), dtype=np.int64, count=n),
        vector_ids=np.fromiter((r[1] for r in rows), dtype=np.int64, count=n),
        centre_of=np.fromiter((r[2] for r in rows), dtype=np.int16, count=n),
        bits=np.ascontiguousarray(bits.T),
        page=np.fromiter((r[4] for r in rows), dtype=np.int64, count=n),
        summary_role=np.fromiter((r[5] for r in rows), dtype=bool, count=n),
        scale=np.fromiter((r[6] for r in rows), dtype=np.float32, count=n),
        slot=np.fromiter((r[7] for r in rows), dtype=np.int64, count=n),
    )


@dataclass(frozen=True)
class Change:
    """One row of ``search_changes``."""

    path: str | None
    text_hash: str | None
    trail: str | None
    passage: str | None


def pages_touched(db: sqlite3.Connection, changes: list[Change], known: Pages) -> set[str]:
    """Every page whose view rows these changes may alter: the pages named, the pages using an added or dropped
    chunk vector, and the pages whose summary passage gained or lost its vector."""
    touched = {c.path for c in changes if c.path is not None}
    for key in sorted({(c.text_hash, c.trail) for c in changes if c.text_hash is not None}):
        # one statement per key: SQLite scans the whole table for a row-value IN list (137 ms at 94,791 chunks)
        touched.update(r[0] for r in db.execute("SELECT path FROM chunks WHERE text_hash = ? AND trail = ?", key))
    passages = {hash(c.passage) for c in changes if c.passage is not None}
    if passages:
        touched.update(path for path, passage in known.passage_of.items() if passage in passages)
    return touched


def read_changes(db: sqlite3.Connection, after: int, upto: int) -> Iterator[Change]:
    for path, text_hash, trail, passage in db.execute(
        "SELECT path, text_hash, trail, passage FROM search_changes WHERE gen > ? AND gen <= ? ORDER BY gen",
        (after, upto),
    ):
        yield Change(path, text_hash, trail, passage)
