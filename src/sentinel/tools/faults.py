"""Faults of the disk under the vault and the index.

What the file system refused, as a status a model can act on: the path, the reason and the fix.

Permissions and a read-only mount are ``[STOP]``: no rewording of the call changes them; the person running
Sentinel must. A full disk, an over-long name or a link loop are ``[RETRY]``: the text says what changes the
outcome. Every primitive reports an ``OSError`` through ``refused`` (the registry catches any it did not), so
the API never answers 500 for one. A vault change the index could not record stands, with a note (``reindex``).
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
from pathlib import Path

from sentinel.index.db import IndexUnavailable
from sentinel.index.sync import sync_paths
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import ToolResult, retry, stop

log = logging.getLogger("sentinel.tools")

IndexFailure = (sqlite3.Error, IndexUnavailable)  # the index could not be written (full disk, read-only file, ...)


def _where(err: OSError, vault: Path, path: str) -> str:
    """The page the error is about: ``path`` when the caller knows it (the file system may name a temporary
    file), else the error's file name, vault-relative when it lies in the vault."""
    name = path or (err.filename if isinstance(err.filename, str) else "")
    if not name or name == path:
        return name or "the vault"
    try:
        return Path(name).resolve().relative_to(vault.resolve()).as_posix() or "the vault folder"
    except (ValueError, OSError):
        return name


def refused(err: OSError, vault: Path, doing: str, path: str = "") -> ToolResult:
    """``err`` while ``doing`` something to ``path`` (a vault path) as a specific ``[STOP]`` or ``[RETRY]``."""
    where = _where(err, vault, path)
    head = f"could not {doing} '{where}'"
    code = err.errno
    if code in (errno.EACCES, errno.EPERM):
        return stop(
            f"{head}: permission denied (Sentinel runs as uid {os.getuid()}). Nothing was changed. The vault's owner "
            f"must give that user read and write access to '{where}' and its folder (chmod/chown); asking again "
            "will not help until then"
        )
    if code == errno.EROFS:
        return stop(
            f"{head}: the vault is on a read-only file system. Nothing was changed. Mount it read-write (or drop "
            "':ro' from the bind mount) to let Sentinel write"
        )
    if code in (errno.ENOSPC, errno.EDQUOT):
        return retry(f"{head}: no space left on the device. Nothing was changed. Free some space, then try again")
    if code == errno.ENAMETOOLONG:
        return retry(f"{head}: the name is too long for the file system. Shorten it and try again")
    if code == errno.ELOOP:
        return retry(f"{head}: a symbolic link on the way loops. Fix or delete the link, or choose another path")
    if code == errno.ENOTDIR:
        return retry(f"{head}: a folder on the way is a page, not a folder. Choose another path")
    if code == errno.EISDIR:
        return retry(f"{head}: it is a folder, not a page. Name a .md page inside it")
    reason = err.strerror or type(err).__name__
    return retry(f"{head}: {reason}. Nothing was changed; fix that and try again")


def index_behind(err: Exception) -> str:
    """The note for a vault change that stands while the index could not record it."""
    return (
        f"the index could not be updated ({err}); the change above is in the vault and the index will catch up "
        "at its next sync (free space or fix the index file's permissions)"
    )


def reindex(ctx: ToolContext, relpaths: list[str]) -> list[str]:
    """Bring the index in line with a vault change just made; the notes to add to the answer (none when it
    worked). The change stands either way: a full disk under the index never turns a done write into an error,
    which a client would retry and so duplicate."""
    try:
        sync_paths(ctx.settings, ctx.writer(), relpaths)
    except IndexFailure as err:
        log.warning("a vault change was not indexed: %s", err, extra={"event": "index-behind", "paths": relpaths})
        return [index_behind(err)]
    return []
