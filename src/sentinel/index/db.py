"""Opening the index: one function, so every entry point gets the same file, pragmas and schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sentinel.index import fold
from sentinel.index.migrations import migrate
from sentinel.paths import index_path
from sentinel.settings import Settings


class IndexUnavailable(RuntimeError):
    """The index cannot be opened or the interpreter cannot load SQLite extensions."""


def _load_vec(db: sqlite3.Connection) -> None:
    import sqlite_vec

    try:
        db.enable_load_extension(True)
        sqlite_vec.load(db)
        db.enable_load_extension(False)
    except AttributeError as err:
        raise IndexUnavailable(
            "this Python's sqlite3 cannot load extensions, which sqlite-vec needs: make the venv from an "
            "interpreter built with extension loading (Debian's /usr/bin/python3 or the official python image)"
        ) from err


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open (and migrate, unless read-only) the index at ``path`` in WAL mode with sqlite-vec loaded and the
    text fold registered (the chunk triggers call it)."""
    if not readonly:
        path.parent.mkdir(parents=True, exist_ok=True)
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False, isolation_level=None)
    except sqlite3.OperationalError as err:
        raise IndexUnavailable(f"cannot open the index at {path}: {err}") from err
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA busy_timeout = 30000")
    db.execute("PRAGMA mmap_size = 268435456")
    fold.register(db)
    _load_vec(db)
    if not readonly:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        migrate(db)
    return db


def open_index(settings: Settings, *, readonly: bool = False) -> sqlite3.Connection:
    """The index of the configured vault, at the path ``paths.index_path`` decides."""
    return connect(index_path(settings), readonly=readonly)
