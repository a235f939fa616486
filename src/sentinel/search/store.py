"""The int8 vectors a search view rescores from, in a file of this process mapped into memory.

Rescoring used to fetch each candidate's int8 BLOB from SQLite (1500 rows a leg, three ``IN`` statements) and
build Python objects for each; here the rows sit in a file mapped read-only, and a leg gathers its candidates
with one numpy index. The view reads each row's vector with its sign bits (``sentinel.search.view_rows``) and
appends it here, so the store holds the same int8 values the index does, and the ranks are those of the SQLite
fetch (tests/search/test_store.py).

The file is append-only: a view refreshed in place appends the rows of the pages it re-read and points its rows
at their new slots, so a query still reading the view before it (and its shorter mapping) is never disturbed.
Rows of pages that left the view stay behind as dead slots until they outnumber the live ones (``compact``); a
view loaded whole starts a new store. Where the file lives: ``sentinel.paths.search_store_dir`` (one file per
process, unlinked as soon as it is made). Where it cannot be made or written (a read-only folder, a full disk,
an index in memory) the view holds no store and rescoring fetches from SQLite as before.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sentinel import paths

log = logging.getLogger(__name__)

COMPACT_SLACK = 65_536  # dead rows always tolerated (25 MB at 384 dims), so small vaults never compact


class VectorStore:
    """An append-only file of int8 rows of ``dims`` bytes, read through a mapping."""

    def __init__(self, fd: int, index_file: str, dims: int) -> None:
        self._fd = fd
        self.index_file = index_file
        self.pid = os.getpid()  # a forked child shares the file: it must neither append nor compact (``owned``)
        self.dims = dims
        self.rows = 0
        self.failed = False  # a write failed: this store is not read again (its view falls back to SQLite)
        self._lock = threading.Lock()

    @staticmethod
    def create(index_file: str, dims: int) -> VectorStore | None:
        """A new empty store for the index at ``index_file``, or None where none can be made."""
        if not index_file or dims <= 0:
            return None
        try:
            fd, name = tempfile.mkstemp(prefix=".search-vectors-", dir=paths.search_store_dir(Path(index_file)))
            os.unlink(name)
        except OSError as exc:
            log.info("search vectors are fetched from the index (no mapped store: %s)", exc)
            return None
        return VectorStore(fd, index_file, dims)

    @staticmethod
    def create_like(other: VectorStore) -> VectorStore | None:
        return VectorStore.create(other.index_file, other.dims)

    def append(self, vectors: bytes) -> int:
        """Write whole rows at the end; the slot of the first. Returns -1 (and stops the store) on failure."""
        with self._lock:
            if self.failed or not self.owned:
                return -1
            first = self.rows
            try:
                written = os.pwrite(self._fd, vectors, first * self.dims)
                if written != len(vectors):
                    raise OSError(f"short write: {written} of {len(vectors)} bytes")
            except OSError as exc:
                log.info("search vectors are fetched from the index (the mapped store failed: %s)", exc)
                self.failed = True
                return -1
            self.rows += len(vectors) // self.dims
            return first

    def mapped(self) -> np.ndarray | None:
        """The rows written so far, (rows, dims) int8, read-only; None if the store failed."""
        with self._lock:
            if self.failed:
                return None
            if not self.rows:
                return np.zeros((0, self.dims), dtype=np.int8)
            try:
                view = mmap.mmap(self._fd, self.rows * self.dims, access=mmap.ACCESS_READ)
            except (OSError, ValueError) as exc:
                log.info("search vectors are fetched from the index (mapping the store failed: %s)", exc)
                self.failed = True
                return None
            return np.frombuffer(view, dtype=np.int8).reshape(self.rows, self.dims)

    @property
    def owned(self) -> bool:
        """Whether this process made the store. A process forked from it (a prefork worker, a forked server)
        shares the file and its offsets: appending there would overwrite the parent's new rows, so a view held
        across a fork is loaded whole in the child (``sentinel.search.view``), with a store of its own."""
        return self.pid == os.getpid()

    def crowded(self, live: int) -> bool:
        """Whether dead rows outnumber the live ones (past ``COMPACT_SLACK``)."""
        return self.rows > 2 * live + COMPACT_SLACK

    def __del__(self) -> None:  # the mappings made from it keep the file's pages alive on their own
        with contextlib.suppress(OSError):
            os.close(self._fd)


RESIDENT_BUDGET = 512 << 20  # bytes of file pages a large store's reads may map into the process between releases
_PAGE = os.sysconf("SC_PAGE_SIZE")

_released_at: list[int] = []  # the process's file-backed resident bytes just after the last release
_release_lock = threading.Lock()


def gathered(mapped: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """``mapped[slots]``; and where the process's file-backed resident memory grew by ``RESIDENT_BUDGET`` since
    the last release, the mapping's pages let go: ``MADV_DONTNEED`` drops them from this process, the page cache
    keeps them, and the next read maps them again. Without it a query's candidates, random rows of the store, left
    most of the store resident (each read fault maps a whole page-cache folio, measured ~240 KB a row): at 1M pages
    1.6 of its 3.6 GB after 80 queries, counted in the process's RSS. A store within the budget is never released
    (nor is memory read for it: no read is slower)."""
    if mapped.nbytes <= RESIDENT_BUDGET:
        return mapped[slots]
    with _release_lock:
        if not _released_at:  # the first read of a large store: what was resident before it
            _released_at.append(_file_resident())
    rows = mapped[slots]
    with _release_lock:
        if _file_resident() - _released_at[0] > RESIDENT_BUDGET and (mapping := _mapping(mapped)) is not None:
            mapping.madvise(mmap.MADV_DONTNEED)
            _released_at[0] = _file_resident()
    return rows


def _file_resident() -> int:
    """Bytes of this process's resident memory that are file pages (``/proc/self/statm``'s shared: ~10 us)."""
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[2]) * _PAGE


def _mapping(array: np.ndarray) -> mmap.mmap | None:
    """The file mapping ``array`` (made by ``VectorStore.mapped``) reads, if it reads one."""
    base: object = array
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return base if isinstance(base, mmap.mmap) else None


class Appender:
    """Rows for a store, buffered into few writes; ``slot`` numbers each row as it will be stored."""

    FLUSH = 4 << 20  # bytes

    def __init__(self, store: VectorStore | None) -> None:
        self.store = store
        self._next = store.rows if store is not None else 0
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, vectors: Sequence[bytes]) -> int:
        """Queue these rows; the slot the first of them will have (-1 without a store)."""
        if self.store is None:
            return -1
        first = self._next
        self._parts.append(b"".join(vectors))
        self._size += len(self._parts[-1])
        self._next += len(vectors)
        if self._size >= self.FLUSH:
            self.flush()
        return first

    def flush(self) -> None:
        if self.store is not None and self._parts:
            expected = self._next - self._size // self.store.dims
            if self.store.append(b"".join(self._parts)) != expected:  # failed, or another writer came between
                self.store.failed = True
            self._parts, self._size = [], 0
