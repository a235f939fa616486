"""What the index holds of each page's file (path, mtime, size, role), as columns, and which walked files differ.

A no-op sync compares every page file with its row. At a million pages a dict of a million row tuples and a
``FileStat`` per file took about 6 of a folder-times sync's 9 s of CPU (docs/scale.md "At a million pages"); as
columns the rows are one fetch and the comparison is numpy's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
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
ROWS = """SELECT path, iif(problem LIKE 'stale: %', -1, mtime_ns), size, role, substr(path, 1, instr(path, '/'))
          FROM pages"""


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
    """Every indexed page's path, mtime, size and role, read in one query."""

    def __init__(self, db: sqlite3.Connection) -> None:
        rows = db.execute(ROWS).fetchall()
        paths, mtimes, sizes, roles, tops = zip(*rows, strict=True) if rows else ((), (), (), (), ())
        del rows
        self.paths: tuple[str, ...] = paths
        self.mtime_ns: Ints = np.array(mtimes, dtype=np.int64)
        self.size: Ints = np.array(sizes, dtype=np.int64)
        self._roles: tuple[str, ...] = roles
        self._tops: tuple[str, ...] = tops

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

    def changed(self, found: Found, role: Callable[[str], Role]) -> Mask:
        """Which found files to read again: new ones, and those whose mtime, size or role differ from their row
        (the role too: a changed role-folder setting re-files pages at the next sync)."""
        new = found.rows < 0
        if not len(self):
            return new
        rows = np.where(new, 0, found.rows)
        differs = (self.mtime_ns[rows] != found.mtime_ns) | (self.size[rows] != found.size) | self._misfiled(role)[rows]
        return new | differs

    def _misfiled(self, role: Callable[[str], Role]) -> Mask:
        """The rows whose role is not the one ``role`` gives their path now: decided once per (top folder, role)
        pair on one of its paths (a page's role follows from its top folder alone)."""
        pairs = dict(zip(zip(self._tops, self._roles, strict=True), self.paths, strict=True))
        wrong = {pair for pair, path in pairs.items() if role(path) != pair[1]}
        if not wrong:
            return np.zeros(len(self), dtype=np.bool_)
        pairs_of_rows = zip(self._tops, self._roles, strict=True)
        return np.fromiter((pair in wrong for pair in pairs_of_rows), np.bool_, len(self))
