"""What the index holds of each page's file (path, mtime, size, role), as columns, and which walked files differ.

A no-op sync compares every page file with its row. At a million pages a dict of a million row tuples and a
``FileStat`` per file took about 6 of a folder-times sync's 9 s of CPU (docs/scale.md "At a million pages"); as
columns the rows are one fetch and the comparison is numpy's.
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sentinel.paths import Role
from sentinel.vault.walk import FileStat

Ints = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

# A page kept as last read while its folder could not be listed (``problem`` 'stale: ...') reads with mtime -1,
# which no file has: it is read again as soon as it is found. The top folder is the role's key
# (``paths.role_lookup``): SQL's cut (up to the first '/', '' for a root page) separates what it separates.
TOP = "substr(path, 1, instr(path, '/'))"
ROWS = f"SELECT path, iif(problem LIKE 'stale: %', -1, mtime_ns), size, {TOP}, role FROM pages"
BATCH = 65_536  # rows fetched at a time: a million row tuples are never held at once


@dataclass(frozen=True)
class Found:
    """The page files a walk found, as columns, each with its row in ``Known`` (-1: not indexed yet)."""

    paths: Sequence[str]
    mtime_ns: Ints
    size: Ints
    rows: Ints

    def files(self, which: Mask) -> list[FileStat]:
        picked = np.flatnonzero(which)
        mtimes, sizes = self.mtime_ns[picked].tolist(), self.size[picked].tolist()
        return [FileStat(self.paths[i], m, s) for i, m, s in zip(picked.tolist(), mtimes, sizes, strict=True)]


class Known:
    """Every indexed page's path, mtime and size, read in one query, and which rows hold a role that ``role``
    no longer gives their path (a changed role-folder setting re-files pages at the next sync)."""

    def __init__(self, db: sqlite3.Connection, role: Callable[[str], Role]) -> None:
        paths: list[str] = []
        mtimes: list[int] = []
        sizes: list[int] = []
        pairs: dict[tuple[str, str], str] = {}  # one path of each (top folder, role) pair
        cursor = db.cursor()
        cursor.row_factory = None  # plain tuples: a sqlite3.Row per row doubled the read
        with _collector_paused():
            cursor.execute(ROWS)
            while batch := cursor.fetchmany(BATCH):
                some, mtime, size, tops, roles = zip(*batch, strict=True)
                paths += some
                mtimes += mtime
                sizes += size
                pairs.update(zip(zip(tops, roles, strict=True), some, strict=True))
        self.paths = paths
        self.mtime_ns: Ints = np.array(mtimes, dtype=np.int64)
        self.size: Ints = np.array(sizes, dtype=np.int64)
        self.misfiled = np.zeros(len(paths), dtype=np.bool_)
        wrong = [pair for pair, path in pairs.items() if role(path) != pair[1]]  # a role follows from the top
        if wrong:
            at = dict(zip(paths, range(len(paths)), strict=True))
            for top, was in wrong:
                query = f"SELECT path FROM pages WHERE {TOP} = ? AND role = ?"
                self.misfiled[[at[row[0]] for row in db.execute(query, (top, was))]] = True

    def __len__(self) -> int:
        return len(self.paths)

    def as_found(self, mtime_ns: Ints, size: Ints) -> Found:
        """Stats taken of every indexed page, in the index's order (the folder-times walk)."""
        return Found(self.paths, mtime_ns, size, np.arange(len(self), dtype=np.int64))

    def find(self, files: list[FileStat]) -> Found:
        """A full walk's files, each matched to its row."""
        at = dict(zip(self.paths, range(len(self)), strict=True))
        count = len(files)
        return Found(
            [f.relpath for f in files],
            np.fromiter((f.mtime_ns for f in files), np.int64, count),
            np.fromiter((f.size for f in files), np.int64, count),
            np.fromiter((at.get(f.relpath, -1) for f in files), np.int64, count),
        )

    def missing(self, found: Found) -> list[tuple[str, int, int]]:
        """The indexed pages the walk did not find: (path, mtime, size), in path order."""
        seen = np.zeros(len(self), dtype=np.bool_)
        seen[found.rows[found.rows >= 0]] = True
        gone = np.flatnonzero(~seen).tolist()
        return sorted((self.paths[i], int(self.mtime_ns[i]), int(self.size[i])) for i in gone)

    def changed(self, found: Found) -> Mask:
        """Which found files to read again: new ones, and those whose mtime, size or role differ from their row."""
        new = found.rows < 0
        if not len(self):
            return new
        rows = np.where(new, 0, found.rows)
        differs = (self.mtime_ns[rows] != found.mtime_ns) | (self.size[rows] != found.size) | self.misfiled[rows]
        return new | differs


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a million row tuples are made (none holds a cycle): its
    collections, set off by the allocations, scanned them again and again, 0.6-1.4 s of CPU at 1M pages."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
