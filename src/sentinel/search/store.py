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
import weakref
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sentinel import paths

log = logging.getLogger(__name__)

READ_BATCH = 4096  # rows ``VectorStore.read_rows`` reads between copies into its result
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
            _stores[view] = self
            return np.frombuffer(view, dtype=np.int8).reshape(self.rows, self.dims)

    def read_rows(self, slots: np.ndarray) -> np.ndarray:
        """Rows ``slots`` (of those written), (len(slots), dims) int8, read from the file, not the mapping (one
        ``pread`` a row: ~0.8 us each, a little less than reading into slices of one array), ``READ_BATCH`` rows
        at a time (a compaction reads every row: their ``bytes`` all at once would be ~1 KB a row)."""
        dims = self.dims
        out = np.empty((len(slots), dims), dtype=np.int8)
        offsets = np.asarray(slots, np.int64) * dims
        for start in range(0, len(offsets), READ_BATCH):
            part = offsets[start : start + READ_BATCH].tolist()
            read = b"".join([os.pread(self._fd, dims, offset) for offset in part])
            if len(read) != len(part) * dims:
                raise OSError("the search store's file is shorter than its rows: restart the search process")
            out[start : start + len(part)] = np.frombuffer(read, dtype=np.int8).reshape(len(part), dims)
        return out

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


# A store up to this size is read through its mapping, and may become resident whole (100k pages: ~440 MB). A
# larger one has its rows read with ``pread``: on Linux 6.18 each read fault maps the page cache's whole (large)
# folio, so 1500 random rows of a 768 MB store mapped 709 MB of it into the process, and at 1M pages (4 GB) one
# gather could map GBs before any release; ``pread`` copies just the rows (~1 us a row) and maps nothing.
RESIDENT_BUDGET = 512 << 20

# The store behind each mapping ``VectorStore.mapped`` made, while the mapping lives: where ``gathered`` reads
# a large store's rows from (the store's descriptor stays open as long as a mapping of it does).
_stores: weakref.WeakKeyDictionary[mmap.mmap, VectorStore] = weakref.WeakKeyDictionary()


def gathered(mapped: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """``mapped[slots]``: through the mapping for a store within ``RESIDENT_BUDGET``, else read from its file
    with ``pread`` (nothing of a large store becomes resident in the process: at 1M pages the mapping's reads
    had left 1.6 of its 3.6 GB counted in the process's RSS)."""
    mapping = _mapping(mapped) if mapped.nbytes > RESIDENT_BUDGET else None
    owner = _stores.get(mapping) if mapping is not None else None
    if owner is None or mapped.nbytes != len(mapping):  # type: ignore[arg-type]  # mapping is not None here
        return mapped[slots]
    return owner.read_rows(slots)


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
