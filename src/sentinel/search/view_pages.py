"""What a search view knows of each indexed page, held as columns: no Python object a page.

At 1M pages the four dicts this replaced (path -> rowid, chunks, passage hash; rowid -> path) held ~266 MB of
the search process, ~280 bytes a page (docs/scale.md, "Stop 47: memory at 1M"). Here each page is a row of a
few arrays and its path a run of one UTF-8 ``bytes``; a path is found by its ``hash`` (a binary search over the
sorted hashes, the path itself compared, so a collision costs a comparison, never a wrong page).
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np


def _key(path: str) -> int:
    """What a path is found by: this process's ``hash`` of it (64 bits; equal keys are told apart by the path)."""
    return hash(path)


class Names:
    """Paths added one at a time as ``Pages`` holds them, so a reader of 1M pages keeps no Python object a page
    (a list of the paths and one of their encodings cost ~170 MB at the end of a 1M-page view load)."""

    def __init__(self) -> None:
        self.names, self.ends, self.keys = bytearray(), array("q"), array("q")

    @staticmethod
    def of(paths: Iterable[str]) -> Names:
        names = Names()
        for path in paths:
            names.add(path)
        return names

    def add(self, path: str) -> None:
        self.names += path.encode()
        self.ends.append(len(self.names))
        self.keys.append(_key(path))


@dataclass(frozen=True, eq=False)
class Pages:
    """The view's pages, one row each, in the order read (``Pages.of``) and joined."""

    rowids: np.ndarray  # (n,) int64: the page's rowid
    ends: np.ndarray  # (n,) int64: where each page's path ends in ``names`` (it starts where the previous ends)
    names: bytes  # every path, UTF-8, one after the other
    keys: np.ndarray  # (n,) int64: ``hash`` of each path (this process's)
    chunks: np.ndarray  # (n,) int32: chunks of each page, with or without a vector
    summary: np.ndarray  # (n,) bool: the page's role takes part in the summary rung
    passages: np.ndarray  # (n,) int64: summary-rung pages: ``hash`` of the passage their summary vector embeds
    pending: dict[str, float]  # pages with a chunk that has no vector yet: when each was indexed

    @staticmethod
    def of(
        rowids: Sequence[int] | np.ndarray,
        paths: Sequence[str] | Names,
        chunks: Sequence[int] | np.ndarray,
        summary: Sequence[bool] | np.ndarray,
        passages: Sequence[int] | np.ndarray,
        pending: dict[str, float],
    ) -> Pages:
        names = paths if isinstance(paths, Names) else Names.of(paths)
        return Pages(
            np.array(rowids, dtype=np.int64),
            np.frombuffer(names.ends, dtype=np.int64).copy(),
            bytes(names.names),
            np.frombuffer(names.keys, dtype=np.int64).copy(),
            np.array(chunks, dtype=np.int32),
            np.array(summary, dtype=bool),
            np.array(passages, dtype=np.int64),
            pending,
        )

    @staticmethod
    def empty() -> Pages:
        return Pages.of([], [], [], [], [], {})

    def __eq__(self, other: object) -> bool:
        """The same pages with the same facts, whatever their rows' order (a view refreshed in place has the
        pages it re-read last)."""
        if not isinstance(other, Pages):
            return NotImplemented
        return self._canonical() == other._canonical()

    def _canonical(self) -> tuple[list[object], ...]:
        order = np.argsort(self.rowids, kind="stable")
        facts = (self.rowids, self.chunks, self.summary, self.passages)
        return ([self._path_at(row) for row in order.tolist()], *(c[order].tolist() for c in facts), [self.pending])

    def __len__(self) -> int:
        return len(self.rowids)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._row(path) >= 0

    def __iter__(self) -> Iterator[str]:
        """Every page's path, in row order."""
        return (self._path_at(row) for row in range(len(self)))

    @property
    def with_chunks(self) -> int:
        """Pages with at least one chunk."""
        return int(np.count_nonzero(self.chunks))

    @property
    def chunk_total(self) -> int:
        return int(self.chunks.sum(dtype=np.int64))

    @property
    def summary_pages(self) -> int:
        """Summary-rung pages."""
        return int(np.count_nonzero(self.summary))

    def paths_at(self, rows: Iterable[int]) -> list[str]:
        """The paths of these rows (positions, not rowids)."""
        return [self._path_at(row) for row in rows]

    def rowid(self, path: str) -> int | None:
        row = self._row(path)
        return int(self.rowids[row]) if row >= 0 else None

    def rowids_of(self, paths: Sequence[str]) -> np.ndarray:
        """Each path's rowid (int64), -1 for a path the view does not hold: one binary search for them all."""
        if not len(self) or not len(paths):
            return np.full(len(paths), -1, dtype=np.int64)
        order, ordered = self._by_key
        keys = np.fromiter((_key(path) for path in paths), dtype=np.int64, count=len(paths))
        at = np.minimum(np.searchsorted(ordered, keys), len(ordered) - 1)
        found = []
        for path, row, keyed in zip(paths, order[at].tolist(), (ordered[at] == keys).tolist(), strict=True):
            if keyed and self._path_at(row) != path:  # another path of the same key: every row of the key is tried
                row = self._row(path)
            found.append(row if keyed else -1)
        rows = np.array(found, dtype=np.int64)
        return np.where(rows >= 0, self.rowids[np.maximum(rows, 0)], -1)

    def path(self, rowid: int) -> str | None:
        """The path of the page with this rowid, None when the view holds none."""
        return self.paths_or_none([rowid])[0]

    def paths_of(self, rowids: Iterable[int]) -> list[str]:
        """The paths of these rowids, in their order, leaving out those the view does not hold."""
        return [path for path in self.paths_or_none(list(rowids)) if path is not None]

    def paths_or_none(self, rowids: Sequence[int] | np.ndarray) -> list[str | None]:
        """The path of each rowid, None where the view holds none: one binary search for them all."""
        if not len(self) or not len(rowids):
            return [None] * len(rowids)
        order, ordered = self._by_rowid
        wanted = np.asarray(rowids, dtype=np.int64)
        at = np.minimum(np.searchsorted(ordered, wanted), len(ordered) - 1)
        rows = at if order is None else order[at]
        stops = self.ends[rows]
        starts = np.where(rows > 0, self.ends[rows - 1], 0)
        names = self.names
        return [
            names[start:stop].decode() if held else None
            for start, stop, held in zip(starts.tolist(), stops.tolist(), (ordered[at] == wanted).tolist(), strict=True)
        ]

    def with_passages(self, hashes: set[int]) -> list[str]:
        """The summary-rung pages whose passage hash is one of ``hashes``."""
        wanted = np.fromiter(hashes, dtype=np.int64, count=len(hashes))
        rows = np.flatnonzero(self.summary & np.isin(self.passages, wanted))
        return [self._path_at(row) for row in rows.tolist()]

    def without(self, paths: Iterable[str]) -> Pages:
        gone = list(paths)
        pending = dict(self.pending)  # a copy: a query may still be reading the view this one replaces
        for path in gone:
            pending.pop(path, None)
        rows = [row for row in (self._row(path) for path in gone) if row >= 0]
        if not rows:
            return Pages(*self._columns(), pending)
        keep = np.ones(len(self), dtype=bool)
        keep[rows] = False
        lengths = np.diff(self.ends, prepend=0)
        names = np.frombuffer(self.names, dtype=np.uint8)[np.repeat(keep, lengths)].tobytes()
        kept = (self.rowids, self.keys, self.chunks, self.summary, self.passages)
        rowids, keys, chunks, summary, passages = (column[keep] for column in kept)
        return Pages(rowids, np.cumsum(lengths[keep]), names, keys, chunks, summary, passages, pending)

    def joined(self, other: Pages) -> Pages:
        """These pages and ``other``'s; a path in both is ``other``'s."""
        mine = self.without(other) if len(other) else self
        if not len(other):
            return mine
        return Pages(
            np.concatenate([mine.rowids, other.rowids]),
            np.concatenate([mine.ends, other.ends + (mine.ends[-1] if len(mine) else 0)]),
            mine.names + other.names,
            np.concatenate([mine.keys, other.keys]),
            np.concatenate([mine.chunks, other.chunks]),
            np.concatenate([mine.summary, other.summary]),
            np.concatenate([mine.passages, other.passages]),
            mine.pending | other.pending,
        )

    def nbytes(self) -> int:
        """Bytes the columns hold (``pending`` apart: a dict, empty once every chunk has a vector)."""
        return sum(column.nbytes for column in self._columns() if isinstance(column, np.ndarray)) + len(self.names)

    def _columns(self) -> tuple[np.ndarray, np.ndarray, bytes, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.rowids, self.ends, self.names, self.keys, self.chunks, self.summary, self.passages

    def _path_at(self, row: int) -> str:
        start = int(self.ends[row - 1]) if row else 0
        return self.names[start : int(self.ends[row])].decode()

    def _row(self, path: str) -> int:
        """The row of ``path``, -1 when the view does not hold it."""
        order, ordered = self._by_key
        key = _key(path)
        at = int(np.searchsorted(ordered, key))
        while at < len(ordered) and int(ordered[at]) == key:  # the same hash: compare the paths
            if self._path_at(int(order[at])) == path:
                return int(order[at])
            at += 1
        return -1

    @functools.cached_property
    def _by_key(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.keys, kind="stable")
        return order.astype(np.int32) if len(order) < 2**31 else order, self.keys[order]

    @functools.cached_property
    def _by_rowid(self) -> tuple[np.ndarray | None, np.ndarray]:
        """The rows by rowid: None and the rowids themselves when they are ascending already (a whole load)."""
        if not len(self) or bool(np.all(self.rowids[1:] > self.rowids[:-1])):
            return None, self.rowids
        order = np.argsort(self.rowids, kind="stable")
        return order.astype(np.int32) if len(order) < 2**31 else order, self.rowids[order]
