"""Which pages a generation's changes touch, read from the index's change log (``search_changes``, see
``sentinel.index.migrations.m006_search_changes``): the pages a search view reads again (``view_rows.read``)
to stay what a whole load would be."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from sentinel.search.view_pages import Pages


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
        touched.update(known.with_passages(passages))
    return touched


def read_changes(db: sqlite3.Connection, after: int, upto: int) -> Iterator[Change]:
    for path, text_hash, trail, passage in db.execute(
        "SELECT path, text_hash, trail, passage FROM search_changes WHERE gen > ? AND gen <= ? ORDER BY gen",
        (after, upto),
    ):
        yield Change(path, text_hash, trail, passage)
