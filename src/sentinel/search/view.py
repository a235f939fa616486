"""What a search process keeps in memory about one index, kept current as the index changes.

Every write a search depends on (pages, chunks, analysis, vectors) bumps ``search_generation`` and logs what
it touched in ``search_changes`` (triggers do both: ``sentinel.index.migrations.m006_search_changes``), so one
tiny read per query tells whether the cached view is current, and the log says which pages to re-read to
make it so (``sentinel.search.view_rows``). The view is loaded whole only when the log cannot tell: the first
load, a bump made by code (new language centres, a re-embed), another model or new centres on record, a
gap in the log, or a change that touches a large share of the vault (re-reading all is then as cheap).
"""

from __future__ import annotations

import heapq
import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

import numpy as np

from sentinel.index.db import IndexConnection
from sentinel.search import centres, freed, view_changes, view_rows
from sentinel.search.embedding import IDENTITY_KEY
from sentinel.search.store import VectorStore
from sentinel.search.vectors import VectorSet

FULL_AFTER = 5000  # changes (rows of the log) past which a view is loaded whole
FULL_SHARE = 0.25  # ... or pages touched, as a share of the vault (with at least FULL_PAGES of them)
FULL_PAGES = 200
PENDING_NAMED = 3  # pages named in the note; the rest are counted

_STATE = f"""SELECT n,
    (SELECT value FROM meta WHERE key = '{IDENTITY_KEY}'),
    (SELECT value FROM meta WHERE key = '{centres.CENTRES_KEY.format(table="chunk_vectors")}'),
    (SELECT value FROM meta WHERE key = '{centres.CENTRES_KEY.format(table="summary_vectors")}')
    FROM search_generation"""

Meta = tuple[str | None, str | None, str | None]  # the model and both tables' centres, as recorded


@dataclass(frozen=True)
class SearchView:
    generation: int
    identity: dict[str, object] | None
    chunks: VectorSet | None  # items are chunk ids
    summary_role_chunks: VectorSet | None  # the chunks of summary-rung pages only: the first rows of ``chunks``
    summaries: VectorSet | None  # items are page rowids (summary-rung pages only)
    chunk_count: int
    page_count: int  # summary-rung pages
    rows: view_rows.Rows
    meta: Meta
    made: Literal["whole", "in place"]  # how this view was brought to its generation

    @property
    def embedded_chunks(self) -> int:
        return len(self.chunks) if self.chunks is not None else 0

    def pages_pending_vectors(self) -> tuple[list[str], int]:
        """The most recently indexed pages with a chunk that has no vector yet (up to ``PENDING_NAMED``), and
        how many pages have one in all."""
        pending = self.rows.pages.pending
        newest = heapq.nsmallest(PENDING_NAMED, pending.items(), key=lambda item: (-item[1], item[0]))
        return [path for path, _ in newest], len(pending)


_views: dict[str, SearchView] = {}
_lock = threading.Lock()


def generation(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT n FROM search_generation").fetchone()[0])


def index_file(db: sqlite3.Connection) -> str:
    known = db.main_file if isinstance(db, IndexConnection) else None
    if known is not None:
        return known
    path = str(db.execute("PRAGMA database_list").fetchone()[2])
    if isinstance(db, IndexConnection):
        db.main_file = path
    return path


def current_view(db: sqlite3.Connection) -> SearchView:
    """The view of this index, brought up to date once per change of the index (thread-safe)."""
    key = index_file(db)
    now = generation(db)
    view = _views.get(key)
    if view is not None and view.generation == now:
        return view
    with _lock:
        view = _views.get(key)
        if view is None or view.generation != now:
            view = refreshed(db, view)
            if key:  # an in-memory database has no file to key on: never cached
                _views[key] = view
    return view


def loaded_view(db: sqlite3.Connection) -> SearchView | None:
    """This process's view of the index as it is, possibly a generation behind, never loaded or refreshed here:
    for callers that must answer at once (a health check) whatever the size of the vault."""
    return _views.get(index_file(db))


def refreshed(db: sqlite3.Connection, view: SearchView | None) -> SearchView:
    """``view`` brought to the index's current generation: in place when the change log says what changed
    since its own, else loaded whole (``view`` None: the first load)."""
    now, *recorded = db.execute(_STATE).fetchone()
    meta: Meta = (recorded[0], recorded[1], recorded[2])
    behind = now - view.generation if view is not None else -1
    inherited = view is not None and view.rows.store is not None and not view.rows.store.owned  # across a fork
    if view is not None and view.meta == meta and 0 < behind <= FULL_AFTER and not inherited:
        changes = list(view_changes.read_changes(db, view.generation, now))
        if len(changes) == behind:  # one row per generation: none was made by code or pruned away
            touched = view_changes.pages_touched(db, changes, view.rows.pages)
            if len(touched) <= max(FULL_PAGES, FULL_SHARE * len(view.rows.pages)):
                store = view.rows.store
                fresh = view_rows.read(db, _words(meta), meta[2] is not None, store, sorted(touched))
                rows = view.rows.without(touched).joined(fresh)
                if store is not None and store.crowded(len(rows.chunks) + len(rows.summaries)):
                    rows = rows.compacted()
                return _view(now, meta, rows, "in place")
    store = VectorStore.create(index_file(db), _dims(meta))
    whole = _view(now, meta, view_rows.read(db, _words(meta), meta[2] is not None, store), "whole")
    freed.give_back()  # the load's temporaries (at 1M pages several hundred MB) among the arrays it keeps
    return whole


def _identity(meta: Meta) -> dict[str, object] | None:
    return json.loads(meta[0]) if meta[0] else None


def _dims(meta: Meta) -> int:
    """Dimensions of the recorded model's vectors; 0 before any vector exists."""
    identity = _identity(meta)
    dims = identity.get("dims") if identity else None
    return dims if isinstance(dims, int) else 0


def _words(meta: Meta) -> int:
    """Sign-bit words per vector; 0 before any vector exists (nothing to hold yet)."""
    return -(-_dims(meta) // 64)


def _view(at: int, meta: Meta, rows: view_rows.Rows, made: Literal["whole", "in place"]) -> SearchView:
    identity = _identity(meta)
    dims = _dims(meta)
    mapped = rows.store.mapped() if rows.store is not None else None  # one mapping for both tables
    chunk_set = _vector_set("chunk_vectors", rows.chunks, meta[1], dims, mapped)
    return SearchView(
        generation=at,
        identity=identity,
        chunks=chunk_set,
        summary_role_chunks=chunk_set.first(rows.chunks.summary_rows) if chunk_set is not None else None,
        summaries=_vector_set("summary_vectors", rows.summaries, meta[2], dims, mapped),
        chunk_count=rows.pages.chunk_total,
        page_count=rows.pages.summary_pages,
        rows=rows,
        meta=meta,
        made=made,
    )


def _vector_set(
    table: str, rows: view_rows.Table, recorded_centres: str | None, dims: int, mapped: np.ndarray | None
) -> VectorSet | None:
    if not len(rows) or recorded_centres is None or not dims:
        return None
    return VectorSet(
        table,
        rows.items,
        rows.vector_ids,
        rows.centre_of,
        rows.bits,
        centres.parse(recorded_centres)[0],
        dims,
        rows.scale,
        rows.slot if mapped is not None else None,
        mapped,
    )


T = TypeVar("T")

_derived: dict[tuple[str, str], tuple[int, object]] = {}


def per_generation(db: sqlite3.Connection, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, remembered until the index changes (for facts a query needs that scan a table)."""
    key = (index_file(db), name)
    now = generation(db)
    cached = _derived.get(key)
    if cached is not None and cached[0] == now:
        return cached[1]  # type: ignore[return-value]
    value = compute()
    if key[0]:
        _derived[key] = (now, value)
    return value


def chunk_count(db: sqlite3.Connection) -> int:
    """How many chunks the index holds (a count scans the table: remembered per change)."""
    return per_generation(db, "chunk_count", lambda: int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]))
