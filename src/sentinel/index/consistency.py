"""Whether the index says what the vault says: the rows a full rebuild would produce, compared with these."""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from pathlib import Path

from sentinel.index.db import connect
from sentinel.index.sync import sync
from sentinel.settings import Settings

# What the vault alone decides (analysis, vectors and timestamps are derived later or differ by when).
_ROWS = {
    "pages": "SELECT path, role, hash, size, mtime_ns, title, problem FROM pages",
    "links": "SELECT source, target_key, resolved, line, places FROM links",
    "chunks": "SELECT path, ordinal, text_hash FROM chunks",
    "aliases": "SELECT path, alias_key FROM aliases",
    "tags": "SELECT path, tag FROM tags",
    "headings": "SELECT path, ordinal, level, text FROM headings",
}


def vault_rows(db: sqlite3.Connection) -> dict[str, Counter[tuple[object, ...]]]:
    """The index's vault-derived rows, counted, table by table."""
    return {table: Counter(tuple(row) for row in db.execute(query)) for table, query in _ROWS.items()}


def differences(settings: Settings, db: sqlite3.Connection) -> dict[str, int]:
    """Rows that differ between ``db`` and a full rebuild of the vault into a scratch index, by table (empty when
    the index is consistent). ``db`` is synced first, as any reader would."""
    sync(settings, db)
    with tempfile.TemporaryDirectory(prefix="sentinel-check-") as scratch:
        fresh = connect(Path(scratch) / "index.db")
        try:
            sync(settings, fresh, rebuild=True)
            want = vault_rows(fresh)
        finally:
            fresh.close()
    have = vault_rows(db)
    return {t: sum(((have[t] - want[t]) + (want[t] - have[t])).values()) for t in _ROWS if have[t] != want[t]}
