"""What a search process keeps in memory about one index, reloaded when the index changes.

Every write a search depends on (chunks, pages, analysis, vectors) bumps ``search_generation`` (triggers
and the embedding step do it), so one tiny read per query tells whether the cached view is current.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from sentinel.paths import SUMMARY_RUNG_ROLES
from sentinel.search import centres, summaries
from sentinel.search.embedding import recorded_identity
from sentinel.search.vectors import VectorSet


@dataclass
class SearchView:
    generation: int
    identity: dict[str, object] | None
    chunks: VectorSet | None  # items are chunk ids
    summary_role_chunks: VectorSet | None  # the chunks of summary-rung pages only
    summaries: VectorSet | None  # items are page rowids (summary-rung pages only)
    chunk_count: int
    page_count: int  # summary-rung pages

    @property
    def embedded_chunks(self) -> int:
        return len(self.chunks) if self.chunks is not None else 0


T = TypeVar("T")

_views: dict[str, SearchView] = {}
_lock = threading.Lock()


def generation(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT n FROM search_generation").fetchone()[0])


def _index_file(db: sqlite3.Connection) -> str:
    return str(db.execute("PRAGMA database_list").fetchone()[2])


def current_view(db: sqlite3.Connection) -> SearchView:
    """The view of this index, loaded once per change of the index (thread-safe)."""
    key = _index_file(db)
    now = generation(db)
    view = _views.get(key)
    if view is not None and view.generation == now:
        return view
    with _lock:
        view = _views.get(key)
        if view is None or view.generation != now:
            view = load_view(db, now)
            if key:  # an in-memory database has no file to key on: never cached
                _views[key] = view
    return view


_derived: dict[tuple[str, str], tuple[int, object]] = {}


def per_generation(db: sqlite3.Connection, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, remembered until the index changes (for facts a query needs that scan a table)."""
    key = (_index_file(db), name)
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


PENDING_NAMED = 3  # pages named in the note; the rest are counted


def pages_pending_vectors(db: sqlite3.Connection) -> tuple[list[str], int]:
    """The most recently indexed pages with a chunk that has no vector yet (up to ``PENDING_NAMED``), and how
    many pages have one in all."""

    def compute() -> tuple[list[str], int]:
        rows = db.execute(
            """SELECT p.path FROM pages p WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.path = p.path AND NOT EXISTS
                   (SELECT 1 FROM chunk_vectors v WHERE v.text_hash = c.text_hash AND v.trail = c.trail))
               ORDER BY p.indexed_at DESC, p.path"""
        ).fetchall()
        return [r[0] for r in rows[:PENDING_NAMED]], len(rows)

    return per_generation(db, "pending_vectors", compute)


def _roles() -> list[str]:
    return sorted(r.value for r in SUMMARY_RUNG_ROLES)


def load_view(db: sqlite3.Connection, at_generation: int) -> SearchView:
    identity = recorded_identity(db)
    dims = int(identity["dims"]) if identity and isinstance(identity.get("dims"), int) else 0  # type: ignore[call-overload]
    chunks_total = chunk_count(db)
    roles = _roles()
    marks = ",".join("?" * len(roles))
    page_count = int(db.execute(f"SELECT COUNT(*) FROM pages WHERE role IN ({marks})", roles).fetchone()[0])
    chunk_set, mask = _chunk_set(db, dims, roles)
    role_chunks = chunk_set.subset(mask) if chunk_set is not None and mask is not None else None
    return SearchView(
        generation=at_generation,
        identity=identity,
        chunks=chunk_set,
        summary_role_chunks=role_chunks,
        summaries=_summary_set(db, dims, roles),
        chunk_count=chunks_total,
        page_count=page_count,
    )


def _chunk_set(db: sqlite3.Connection, dims: int, roles: list[str]) -> tuple[VectorSet | None, np.ndarray | None]:
    table_centres = centres.load(db, "chunk_vectors")
    if not dims or table_centres is None:
        return None, None
    marks = ",".join("?" * len(roles))
    rows = db.execute(
        f"""SELECT c.id, v.id, v.centre, v.bits, p.role IN ({marks})
            FROM chunks c
            JOIN chunk_vectors v ON v.text_hash = c.text_hash AND v.trail = c.trail
            JOIN pages p ON p.path = c.path
            ORDER BY c.id""",
        roles,
    ).fetchall()
    if not rows:
        return None, None
    vector_set = _vector_set("chunk_vectors", rows, table_centres[0], dims)
    return vector_set, np.fromiter((bool(r[4]) for r in rows), dtype=bool, count=len(rows))


def _summary_set(db: sqlite3.Connection, dims: int, roles: list[str]) -> VectorSet | None:
    table_centres = centres.load(db, "summary_vectors")
    if not dims or table_centres is None:
        return None
    pages = summaries.page_summaries(db, f"p.role IN ({','.join('?' * len(roles))})", roles)
    stored = {r[0]: (r[1], r[2], r[3]) for r in db.execute("SELECT text, id, centre, bits FROM summary_vectors")}
    rows = [(page.page_id, *stored[page.passage]) for page in pages if page.passage in stored]
    return _vector_set("summary_vectors", rows, table_centres[0], dims) if rows else None


def _vector_set(table: str, rows: list[Any], table_centres: centres.Centres, dims: int) -> VectorSet:
    words = -(-dims // 64)
    bits = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.uint64).reshape(len(rows), words)
    bits = np.ascontiguousarray(bits.T)
    return VectorSet(
        table=table,
        items=np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
        vector_ids=np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
        centre_of=np.fromiter((r[2] for r in rows), dtype=np.int16, count=len(rows)),
        bits=bits,
        centres=table_centres,
        dims=dims,
    )
