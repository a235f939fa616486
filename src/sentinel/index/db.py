"""Opening the index: one function, so every entry point gets the same file, pragmas and schema."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import time
from pathlib import Path

from sentinel.errors import Unavailable
from sentinel.index import fold
from sentinel.index.migrations import migrate
from sentinel.paths import index_path
from sentinel.settings import Settings

log = logging.getLogger("sentinel.index")

# SQLITE_CORRUPT and SQLITE_NOTADB: the file is damaged or not a database. Busy, locked or read-only files are
# other errors and are never taken for corruption.
_CORRUPT_CODES = {11, 26}


class IndexUnavailable(Unavailable, RuntimeError):
    """The index cannot be opened or the interpreter cannot load SQLite extensions."""


class IndexConnection(sqlite3.Connection):
    """A connection to the index that remembers its main file once asked (``search.view.index_file``: a search
    asked ~12 times a query, a statement each, 0.3 ms CPU at 10k synthetic pages; docs/retrieval.md, "Stop 55,
    h55e"). A connection's main file never changes."""

    main_file: str | None = None


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


def _open(path: Path, readonly: bool) -> sqlite3.Connection:
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
    try:
        db = sqlite3.connect(
            uri, uri=True, timeout=30, check_same_thread=False, isolation_level=None, factory=IndexConnection
        )
    except sqlite3.OperationalError as err:
        raise IndexUnavailable(f"cannot open the index at {path}: {err}") from err
    try:
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA busy_timeout = 30000")
        # No mapping of the file: each connection's mapped pages count in the process's RSS (one mapping a
        # thread's reader, each up to its size, and Linux 6.18 maps a whole large folio a fault), and a mapping
        # of the first 256 MB covered 1% of a 1M-page index (26 GB); reads go through SQLite's page cache.
        db.execute("PRAGMA mmap_size = 0")
        fold.register(db)
        _load_vec(db)
        db.execute("SELECT COUNT(*) FROM sqlite_master")  # reads the header now, not in the first query
        if not readonly:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def _is_corrupt(err: sqlite3.DatabaseError) -> bool:
    return getattr(err, "sqlite_errorcode", None) in _CORRUPT_CODES


def _move_aside(path: Path, err: sqlite3.DatabaseError) -> None:
    """Rename a corrupt index (and its WAL and shared-memory files) out of the way, keeping them for a look.

    Holds a lock beside the index, so when the API and the worker find the damage at once only one moves it
    and the other opens the fresh file."""
    with open(path.with_name(path.name + ".recover.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            _open(path, readonly=False).close()
            return  # another process has already replaced it
        except sqlite3.DatabaseError as again:
            if not _is_corrupt(again):
                raise
        kept = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
        os.replace(path, kept)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(path.with_name(path.name + suffix), kept.with_name(kept.name + suffix))
    log.warning(
        "the index at %s could not be read (%s); it was moved aside to %s and a new one is being built from the "
        "vault (the index is derived: no page is lost)",
        path,
        err,
        kept.name,
    )


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open (and migrate, unless read-only) the index at ``path`` in WAL mode with sqlite-vec loaded and the
    text fold registered (the chunk triggers call it).

    A file that is not a database, or a damaged one, is moved aside and replaced by an empty index that the
    next sync fills: the index is derived from the vault, so rebuilding it loses nothing."""
    if not readonly:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return _open(path, readonly)
    except sqlite3.DatabaseError as err:
        if not _is_corrupt(err):
            raise IndexUnavailable(f"cannot open the index at {path}: {err}") from err
        if readonly:
            raise IndexUnavailable(
                f"the index at {path} is damaged ({err}); run `sentinel index rebuild` to move it aside and rebuild"
            ) from err
        _move_aside(path, err)
    return _open(path, readonly)


def open_index(settings: Settings, *, readonly: bool = False) -> sqlite3.Connection:
    """The index of the configured vault, at the path ``paths.index_path`` decides."""
    return connect(index_path(settings), readonly=readonly)
