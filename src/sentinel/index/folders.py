"""No-op sync by folder times: the last full walk's folders, kept in ``meta``, let a sync skip listing the
folders that have not changed since (``sentinel.vault.walk.walk_known`` says why that is safe).

Only where the file system keeps folder times the POSIX way (the local Linux file systems below); anywhere
else (network and FUSE mounts, FAT, a system without /proc/self/mountinfo) every sync walks in full.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from sentinel.index.migrations import transaction
from sentinel.vault.walk import Folder, Stats, VaultWalk, walk_known, walk_vault

KEY = "walk_folders"
SETTLE_NS = 2_000_000_000  # a folder changed this close to a walk's start may share its clock tick: not trusted
# file systems that move a folder's mtime and ctime on every create, delete and rename in it, at fine resolution
TRUSTED_TYPES = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "zfs", "f2fs", "overlay", "bcachefs"})
MOUNTINFO = Path("/proc/self/mountinfo")


@dataclass(frozen=True)
class Walked:
    walk: VaultWalk  # what the full walk listed; a folders walk lists nothing (nothing skipped, unreadable...)
    how: Literal["folders", "full"]  # the listing skipped (every known page stat'ed), or every folder listed
    started_ns: int
    stats: Stats | None = None  # a folders walk's stats of the pages it was given, in their order


def walk(db: sqlite3.Connection, vault: Path, pages: Sequence[str], *, full: bool = False) -> Walked:
    """The vault's walk, by the recorded folders when they can be trusted (never when ``full``); ``pages``:
    every page path the index holds (they are what an unchanged folder holds)."""
    started = time.time_ns()
    record = _load(db) if trusts_folder_times(vault) and not full else None
    if record is not None and record["pages"] == len(pages):
        folders = {k: Folder(v[0], tuple(v[1]), bool(v[2])) for k, v in record["folders"].items()}
        stats = walk_known(vault, folders, pages, int(record["settled_before_ns"]))
        if stats is not None:
            return Walked(VaultWalk([], [], [], [], folders), "folders", started, stats)
    return Walked(walk_vault(vault), "full", started)


def remember(db: sqlite3.Connection, vault: Path, walked: Walked, *, complete: bool) -> None:
    """Record a full walk's folders once the index holds every page it found (``complete``: nothing withheld
    or kept stale): saved any earlier, the record could let a later sync skip a page the index never took in.
    The index's page count is recorded with it and checked on use."""
    if walked.how != "full" or not trusts_folder_times(vault):
        return  # nothing to record (a record left from a trusted mount is not read while this one is untrusted)
    if not complete:
        with transaction(db):
            db.execute("DELETE FROM meta WHERE key = ?", (KEY,))
        return
    record = {
        "settled_before_ns": walked.started_ns - SETTLE_NS,
        "pages": int(db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]),
        "folders": {k: [v.changed_ns, list(v.subfolders), v.plain] for k, v in walked.walk.folders.items()},
    }
    with transaction(db):
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (KEY, json.dumps(record, separators=(",", ":"))),
        )


def _load(db: sqlite3.Connection) -> dict[str, Any] | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    return json.loads(row[0]) if row else None


@lru_cache(maxsize=16)
def trusts_folder_times(vault: Path) -> bool:
    """Whether the file system holding ``vault`` is one whose folder times can be trusted (see TRUSTED_TYPES)."""
    try:
        lines = MOUNTINFO.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    real = os.path.realpath(vault)
    best, kind = "", ""
    for line in lines:
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) < 5 or not right:
            continue
        point = fields[4].encode().decode("unicode_escape")  # mountinfo writes a space as \040
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, right.split()[0]
    return kind in TRUSTED_TYPES
