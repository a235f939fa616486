"""The columns of a search view's tables as they are read: their dtypes, and arrays filled batch by batch.

``sentinel.search.view_rows`` reads the index in batches of rows and puts each batch straight into these arrays,
so no row stays a Python object past its batch; at 9.5M chunk vectors (a 1M-page vault) a tuple a row held to
the end cost several GB (docs/scale.md, "A view that fits 1M pages").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def id_dtype(largest: int) -> np.dtype:
    """The dtype of the view's id columns (chunk ids, page rowids, vector ids, store slots, the by-page order):
    int32 while ``largest``, the most any of them can be, fits; int64 past that. At 9.5M chunk vectors each
    int64 column costs 38 MB more than an int32 one."""
    return np.dtype(np.int32) if largest <= np.iinfo(np.int32).max else np.dtype(np.int64)


def ids_like(column: np.ndarray, ids: Sequence[int] | np.ndarray) -> np.ndarray:
    """``ids`` in ``column``'s dtype, to ``np.searchsorted`` it with: numpy would otherwise widen the whole column
    at every call (0.33 ms at 950k int32 rows). An id too large for the column cannot be in it: it becomes -1,
    which no row holds."""
    wide = np.asarray(ids, dtype=np.int64)
    if column.dtype == wide.dtype:
        return wide
    return np.where(wide > np.iinfo(column.dtype).max, -1, wide).astype(column.dtype)


class Filling:
    """One table's columns filled batch by batch into arrays made once for the rows expected (grown if more
    come), so no row is ever a Python object past its batch; also every chunk's page and whether it lacks a
    vector, to count pages."""

    def __init__(self, expected: int, words: int, ids: np.dtype) -> None:
        self.words, self.ids, self.n, self.seen = words, ids, 0, 0
        self.columns = {
            "items": np.empty(expected, ids),
            "vector_ids": np.empty(expected, ids),
            "centre_of": np.empty(expected, np.int16),
            "bits": np.empty((words, expected if words else 0), np.uint64),
            "page": np.empty(expected, ids),
            "summary_role": np.empty(expected, bool),
            "scale": np.empty(expected, np.float32),
            "slot": np.empty(expected, ids),
        }
        self.every_page = np.empty(expected, ids)
        self.lacks = np.empty(expected, bool)

    def count(self, page: np.ndarray, lacks: np.ndarray) -> None:
        at = slice(self.seen, self.seen + len(page))
        self.every_page, self.lacks = _room(self.every_page, at.stop), _room(self.lacks, at.stop)
        self.every_page[at], self.lacks[at] = page, lacks
        self.seen = at.stop

    def add(
        self,
        items: Sequence[int],
        vector_ids: Sequence[int],
        centres: Sequence[int],
        bits: Sequence[bytes],
        pages: Sequence[int],
        roles: Sequence[int],
        scales: Sequence[float],
        first_slot: int,
    ) -> None:
        n = len(items)
        at = slice(self.n, self.n + n)
        self.columns = {name: _room(column, at.stop) for name, column in self.columns.items()}
        columns = self.columns
        columns["items"][at], columns["vector_ids"][at], columns["centre_of"][at] = items, vector_ids, centres
        columns["bits"][:, at] = np.frombuffer(b"".join(bits), dtype=np.uint64).reshape(n, self.words).T
        columns["page"][at], columns["summary_role"][at], columns["scale"][at] = pages, roles, scales
        columns["slot"][at] = np.arange(first_slot, first_slot + n) if first_slot >= 0 else -1
        self.n = at.stop

    def per_page(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The page rowids with a chunk (int64, ascending) and how many chunks each has, and the page rowids with
        a chunk that has no vector; once: every chunk's page is let go here, before the rows are put in view order
        (5 bytes a chunk, 52 MB at 1M pages)."""
        pages, counts = np.unique(self.every_page[: self.seen], return_counts=True)
        pending = np.unique(self.every_page[: self.seen][self.lacks[: self.seen]])
        self.every_page, self.lacks, self.seen = np.empty(0, self.ids), np.empty(0, bool), 0
        return pages.astype(np.int64), counts, pending.astype(np.int64)

    def filled(self) -> dict[str, np.ndarray]:
        """The columns of the rows added, by ``Table`` field."""
        return {name: _cut(column, self.n) for name, column in self.columns.items()}


def _room(column: np.ndarray, rows: int) -> np.ndarray:
    """``column`` with room for ``rows`` along its last axis: itself, or a copy 1.5 times that size (only when the
    index gained chunks between the count and the read)."""
    if column.shape[-1] >= rows:
        return column
    grown = np.empty((*column.shape[:-1], rows + rows // 2), column.dtype)
    grown[..., : column.shape[-1]] = column
    return grown


def _cut(column: np.ndarray, rows: int) -> np.ndarray:
    return column if column.shape[-1] == rows else np.ascontiguousarray(column[..., :rows])
