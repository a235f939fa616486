"""Bring the index in line with the vault: only changed files are re-read; the vault always wins."""

from __future__ import annotations

import contextlib
import ctypes
import json
import multiprocessing
import os
import signal
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import numpy as np

from sentinel.index import fold, folders
from sentinel.index.known import Known
from sentinel.index.migrations import transaction
from sentinel.index.resolve import keys_touching, refresh_links
from sentinel.paths import LINK_PLACING_ROLES, page_name, role_lookup, role_of
from sentinel.settings import Settings
from sentinel.vault.hashes import chunk_hash, unreadable_page_hash
from sentinel.vault.links import key_base, link_key
from sentinel.vault.parse import ParsedPage, parse_page
from sentinel.vault.walk import FileStat, check_vault
from sentinel.vault.write import kind_of, read_regular

Progress = Callable[[int, int], None]

# A batch's chunks are staged in a temp table and moved into ``chunks`` by one INSERT ... SELECT: FTS5, filled
# by the insert trigger, takes the same rows several times faster from one statement than from one statement
# per page (94,791 chunks of the 10k synthetic vault: 2.6 s against 5.8 s).
CHUNK_COLUMNS = "path, ordinal, trail, heading, text, text_hash, words, kind"
STAGE_CHUNKS = f"CREATE TEMP TABLE IF NOT EXISTS staged_chunks ({CHUNK_COLUMNS})"


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    links_changed: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)
    refused: str = ""  # why deletions were withheld (the mass-disappearance guard)
    changed_paths: list[str] = field(default_factory=list)  # re-read files (what the live watcher embeds)
    walk: str = ""  # how the vault was walked: "folders" (unchanged folders not listed again) or "full"
    seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "links_changed": self.links_changed,
            "problems": [{"path": p, "problem": r} for p, r in self.problems],
            "refused": self.refused,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class _Read:
    stat: FileStat
    parsed: ParsedPage | None
    hash: str
    problem: str | None


def file_date(mtime_ns: int) -> str:
    """The file's own date (UTC), for a page that names none in its frontmatter or title."""
    return datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).date().isoformat() if mtime_ns > 0 else ""


def _read(vault: Path, stat: FileStat, settings: Settings) -> _Read:
    """Read and parse one file; any bad input becomes a recorded problem, never an exception."""
    full = vault / stat.relpath
    if stat.size > settings.max_page_bytes:
        return _Read(
            stat,
            None,
            f"size:{stat.size}:{stat.mtime_ns}",
            f"skipped: {stat.size / 1e6:.1f} MB is over max_page_bytes ({settings.max_page_bytes / 1e6:.1f} MB)",
        )
    try:
        data = read_regular(full)
    except OSError as err:  # unreadable, or swapped for a FIFO since the walk
        return _Read(stat, None, "", f"skipped: unreadable ({err.strerror})")
    if b"\x00" in data:
        return _Read(stat, None, unreadable_page_hash(data), "skipped: binary data (NUL bytes) in a .md file")
    problem = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        text = data.decode("utf-8", errors="replace")
        problem = f"invalid UTF-8 at byte {err.start}; undecodable bytes replaced with U+FFFD"
    text = text.removeprefix("\ufeff")
    parsed = parse_page(stat.relpath, text, chunk_words=settings.chunk_words)
    problems = [*([problem] if problem else []), *parsed.problems]
    return _Read(stat, parsed, parsed.content_hash, "; ".join(problems) or None)


PARALLEL_FROM = 2000  # below this many files, starting worker processes costs more than it saves


def _die_with_parent(parent: int) -> None:
    """Make a parse worker end when the process that started it does (a kill -9 of the API or the CLI), instead
    of parsing on for nobody. Linux's PR_SET_PDEATHSIG; elsewhere the pool's closed pipe ends it at its next task.
    The pool is made and shut down inside one sync call, so the thread that started the worker outlives it."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)


def _read_all(vault: Path, changed: list[FileStat], settings: Settings) -> Iterator[_Read]:
    """Read and parse files, on every core when there are many (parsing is the CPU-bound part of a sync)."""
    workers = os.cpu_count() or 1
    if len(changed) < PARALLEL_FROM or workers < 2:
        yield from (_read(vault, stat, settings) for stat in changed)
        return
    # spawn, not fork: the API calls sync from a process that runs threads
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=spawn, initializer=_die_with_parent, initargs=(os.getpid(),)) as pool:
        yield from pool.map(partial(_read, vault, settings=settings), changed, chunksize=64)


def _names_of(db: sqlite3.Connection, paths: Iterable[str]) -> set[str]:
    names: set[str] = set()
    for path in paths:
        names.update(r[0] for r in db.execute("SELECT name_key FROM pages WHERE path = ?", (path,)))
        names.update(r[0] for r in db.execute("SELECT alias_key FROM aliases WHERE path = ?", (path,)))
    return names


def _clear_children(db: sqlite3.Connection, path: str) -> None:
    for table, column in (("links", "source"), ("aliases", "path"), ("tags", "path"), ("headings", "path")):
        db.execute(f"DELETE FROM {table} WHERE {column} = ?", (path,))
    db.execute("DELETE FROM chunks WHERE path = ?", (path,))


def _store(db: sqlite3.Connection, read: _Read, settings: Settings, now: float) -> set[str]:
    """Write one page and its parts (its chunks to the batch's staging table); returns the link keys it
    introduced (to be resolved)."""
    rel = read.stat.relpath
    role = role_of(rel, settings)
    parsed = read.parsed
    path_key = link_key(rel)
    db.execute(
        """INSERT INTO pages (path, title, path_key, name_key, role, frontmatter, description, hash, mtime_ns,
                              size, problem, indexed_at, date)
           VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
           ON CONFLICT(path) DO UPDATE SET title=excluded.title, path_key=excluded.path_key,
             name_key=excluded.name_key, role=excluded.role, frontmatter=excluded.frontmatter,
             description=excluded.description, hash=excluded.hash, mtime_ns=excluded.mtime_ns,
             size=excluded.size, problem=excluded.problem, indexed_at=excluded.indexed_at, date=excluded.date""",
        (
            rel,
            page_name(rel),
            path_key,
            key_base(path_key),
            role.value,
            json.dumps(parsed.frontmatter if parsed else {}, ensure_ascii=False),
            parsed.description if parsed else "",
            read.hash,
            read.stat.mtime_ns,
            read.stat.size,
            read.problem,
            now,
            (parsed.date if parsed else "") or file_date(read.stat.mtime_ns),
        ),
    )
    _clear_children(db, rel)
    if parsed is None:
        return set()
    places = int(role in LINK_PLACING_ROLES)
    keys: set[str] = set()
    rows = []
    for link in parsed.links:
        if not link.target:
            continue  # [[#Heading]] points inside the page itself
        key = link_key(link.target)
        keys.add(key)
        rows.append((rel, link.target, key, key_base(key), link.heading, link.display, link.kind, link.line, places))
    db.executemany(
        """INSERT INTO links (source, target, target_key, target_base, heading, display, kind, line, places)
           VALUES (?,?,?,?,?,?,?,?,?)""",
        rows,
    )
    db.executemany(
        "INSERT INTO aliases (path, alias, alias_key) VALUES (?,?,?)",
        [(rel, a, link_key(a)) for a in parsed.aliases],
    )
    db.executemany("INSERT INTO tags (path, tag) VALUES (?,?)", [(rel, t) for t in parsed.tags])
    db.executemany(
        "INSERT INTO headings (path, ordinal, level, text, line) VALUES (?,?,?,?,?)",
        [(rel, i, h.level, h.text, h.line) for i, h in enumerate(parsed.headings)],
    )
    db.executemany(
        f"INSERT INTO temp.staged_chunks ({CHUNK_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)",
        [(rel, c.ordinal, c.trail, c.heading, c.text, chunk_hash(c.text), c.words, c.kind) for c in parsed.chunks],
    )
    return keys


def _insert_staged_chunks(db: sqlite3.Connection) -> None:
    """Move the batch's staged chunks into ``chunks`` with one statement (its trigger fills the FTS index)."""
    # a chunk's language is decided as it is written and kept with it (sentinel.index.fold: the triggers fold with it)
    db.execute(
        f"INSERT INTO chunks ({CHUNK_COLUMNS}, language) SELECT {CHUNK_COLUMNS}, page.language "
        f"FROM temp.staged_chunks JOIN ({fold.page_languages('temp.staged_chunks')}) AS page USING (path) "
        "ORDER BY temp.staged_chunks.rowid"
    )
    db.execute("DELETE FROM temp.staged_chunks")


def _withheld(settings: Settings, indexed: int, gone: int) -> str:
    """The mass-disappearance guard: protects the index from an unmounted or half-synced drive.

    Every page vanishing at once (or more than ``disappearance_share`` of a vault of ten or more pages) is
    far likelier a missing mount than an edit, so nothing is deleted; ``sentinel index rebuild`` accepts it.
    """
    if not gone or not indexed:
        return ""
    share = gone / indexed
    if gone == indexed or (indexed >= 10 and share > settings.disappearance_share):
        return (
            f"{gone} of {indexed} indexed pages are missing from the vault at once; nothing was deleted from "
            "the index (an unmounted drive is not an edit). If the pages really are gone, run "
            "`sentinel index rebuild`."
        )
    return ""


def _moved(removed: list[tuple[str, int, int]], added: list[FileStat]) -> int:
    """How many vanished pages ((path, mtime, size) as indexed) reappear under a new folder (same file name,
    mtime and size: a rename keeps them), so renaming the folder that holds most of the vault is not taken for a
    missing drive."""
    arrived: dict[tuple[str, int, int], int] = {}
    for f in added:
        key = (f.relpath.rsplit("/", 1)[-1], f.mtime_ns, f.size)
        arrived[key] = arrived.get(key, 0) + 1
    moved = 0
    for path, mtime_ns, size in removed:
        key = (path.rsplit("/", 1)[-1], mtime_ns, size)
        if arrived.get(key):
            arrived[key] -= 1
            moved += 1
    return moved


def apply_changes(
    db: sqlite3.Connection,
    settings: Settings,
    vault: Path,
    changed: list[FileStat],
    removed: list[str],
    report: SyncReport,
    progress: Progress | None = None,
) -> None:
    """Index ``changed`` files and drop ``removed`` paths in one transaction, then re-resolve links.

    Each file is stored as soon as it is parsed, so on a large batch the worker processes parse while this
    one writes."""
    now = time.time()
    paths = [f.relpath for f in changed]
    report.changed_paths = paths
    with transaction(db):
        db.execute(STAGE_CHUNKS)
        touched = _names_of(db, [*removed, *paths])
        new_keys: set[str] = set()
        for path in removed:
            db.execute("DELETE FROM pages WHERE path = ?", (path,))
        for done, read in enumerate(_read_all(vault, changed, settings), 1):
            new_keys |= _store(db, read, settings, now)
            if read.problem:
                report.problems.append((read.stat.relpath, read.problem))
            if progress and (done % 200 == 0 or done == len(changed)):
                progress(done, len(changed))
        _insert_staged_chunks(db)
        touched |= _names_of(db, paths)
        report.links_changed = refresh_links(db, keys_touching(db, touched) | new_keys)


def sync(
    settings: Settings, db: sqlite3.Connection, *, rebuild: bool = False, progress: Progress | None = None
) -> SyncReport:
    """Walk the vault, re-read what changed (mtime or size), drop what vanished, resolve links.

    ``rebuild`` re-reads every file and accepts any deletions, however many: the explicit way to take an
    emptied vault.
    """
    started = time.perf_counter()
    vault = check_vault(settings.vault)
    known = Known(db, role_lookup(settings))
    walked = folders.walk(db, vault, known.paths, full=rebuild)
    walk = walked.walk
    found = known.find(walk.files) if walked.stats is None else known.as_found(*walked.stats)
    report = SyncReport(problems=[*walk.skipped, *walk.unreadable], walk=walked.how)
    _clean_leftovers(walk.leftovers)
    missing = known.missing(found)
    # a folder that cannot be listed has not lost its pages: they stay, marked stale, until it can be read
    stale = [path for path, _, _ in missing if _under_any(path, walk.unreadable)]
    gone = [page for page in missing if not _under_any(page[0], walk.unreadable)]
    which = np.ones(len(found.paths), dtype=np.bool_) if rebuild else known.changed(found)
    changed = found.files(which)
    added = which & (found.rows < 0)
    if not rebuild:
        report.refused = _withheld(settings, len(known), len(gone) - _moved(gone, found.files(added)))
    removed = [] if report.refused else [path for path, _, _ in gone]
    report.added = int(added.sum())
    report.updated = len(changed) - report.added
    report.removed = len(removed)
    report.unchanged = len(found.paths) - len(changed)
    if changed or removed:
        apply_changes(db, settings, vault, changed, removed, report, progress)
    if stale:
        _mark_stale(db, stale, walk.unreadable)
    folders.remember(db, vault, walked, complete=not (stale or report.refused))
    report.seconds = time.perf_counter() - started
    return report


LEFTOVER_AGE_S = 60.0  # a temporary file this old belongs to no write still running: a killed one left it


def _clean_leftovers(leftovers: list[str]) -> None:
    """Delete the temporary files of writes that were killed before their rename (never a page: the rename is
    what makes a page)."""
    cutoff = time.time() - LEFTOVER_AGE_S
    for path in leftovers:
        with contextlib.suppress(OSError):
            if os.lstat(path).st_mtime < cutoff:
                os.unlink(path)


def _under_any(path: str, folders: list[tuple[str, str]]) -> bool:
    return any(folder in (".", "", path) or path.startswith(folder + "/") for folder, _ in folders)


def _mark_stale(db: sqlite3.Connection, paths: list[str], folders: list[tuple[str, str]]) -> None:
    """Keep these pages, with a problem saying they are as last read."""
    with transaction(db):
        for path in paths:
            why = next(why for folder, why in folders if _under_any(path, [(folder, why)]))
            db.execute("UPDATE pages SET problem = ? WHERE path = ?", (f"stale: {why}", path))


def sync_paths(settings: Settings, db: sqlite3.Connection, relpaths: Iterable[str]) -> SyncReport:
    """Re-index just these vault paths (after a write, move or delete made through Sentinel)."""
    started = time.perf_counter()
    vault = check_vault(settings.vault)
    report = SyncReport()
    changed, removed = [], []
    for rel in relpaths:
        try:
            st = os.stat(vault / rel)
        except FileNotFoundError:
            removed.append(rel)
            continue
        except OSError as err:  # an unreadable folder: the page is not gone, it stays as last read
            report.problems.append((rel, f"cannot stat ({err.strerror}); kept as last read"))
            continue
        if stat.S_ISREG(st.st_mode):
            changed.append(FileStat(rel, st.st_mtime_ns, st.st_size))
        else:  # a FIFO, socket or device where a page was: never read
            report.problems.append((rel, f"{kind_of(st.st_mode)}, not a regular file; never read, not indexed"))
            removed.append(rel)
    report.updated, report.removed = len(changed), len(removed)
    apply_changes(db, settings, vault, changed, removed, report)
    report.seconds = time.perf_counter() - started
    return report
