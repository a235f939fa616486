"""Walking the vault: every visible *.md file with its size and mtime, nothing else."""

from __future__ import annotations

import operator
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sentinel.errors import NotFound
from sentinel.paths import is_hidden, not_vault_content
from sentinel.vault.write import kind_of


@dataclass(frozen=True)
class FileStat:
    relpath: str
    mtime_ns: int
    size: int


class VaultMissing(NotFound, FileNotFoundError):
    """The configured vault is not a readable directory."""


def check_vault(vault: Path) -> Path:
    """The vault as an absolute path, or a clear error naming what is wrong with it."""
    path = vault.expanduser()
    if not path.exists():
        raise VaultMissing(f"the vault {path} does not exist: pass --vault or set SENTINEL_VAULT to your vault")
    if not path.is_dir():
        raise VaultMissing(f"the vault {path} is a file, not a directory: point --vault at the vault folder")
    if not os.access(path, os.R_OK | os.X_OK):
        raise VaultMissing(f"the vault {path} is not readable by this user (uid {os.getuid()})")
    return path.resolve()


class VaultWalk(NamedTuple):
    files: list[FileStat]
    skipped: list[tuple[str, str]]  # (relpath, why): files passed over
    unreadable: list[tuple[str, str]]  # (folder or page relpath, why): what the walk could not read
    leftovers: list[str]  # absolute paths of temporary files an interrupted write left (``.sentinel-*.tmp``)
    folders: dict[str, Folder]  # every folder listed, by relpath ("" is the vault): see ``walk_known``


class Folder(NamedTuple):
    """What one listing of a folder found, enough to skip listing it again while it has not changed."""

    changed_ns: int  # the later of its mtime and ctime, taken after the listing
    subfolders: tuple[str, ...]  # names of the visible folders the walk went into
    plain: bool  # every entry was a page file (no link) or a folder: nothing skipped, unreadable or left over


TEMP_PREFIX, TEMP_SUFFIX = ".sentinel-", ".tmp"  # ``atomic_write``'s temporary files


def walk_vault(vault: Path) -> VaultWalk:
    """All visible .md files below ``vault`` (hidden folders skipped, symlinks leaving the vault refused, FIFOs,
    sockets and devices refused), the files passed over with the reason, and the folders that could not be
    listed (their pages are not gone: the caller keeps them)."""
    root = str(vault)
    walk = VaultWalk([], [], [], [], {})

    def unlistable(err: OSError) -> None:
        folder = os.path.relpath(err.filename, root).replace(os.sep, "/") if err.filename else "."
        walk.unreadable.append((folder, f"folder cannot be read ({err.strerror}); its pages are kept as they were"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unlistable):
        dirnames[:] = sorted(d for d in dirnames if not is_hidden(d))
        noted = len(walk.skipped) + len(walk.unreadable) + len(walk.leftovers)
        plain = True
        for name in filenames:
            full = os.path.join(dirpath, name)
            if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
                walk.leftovers.append(full)
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if not_vault_content(rel):
                continue
            link = os.path.islink(full)
            plain = plain and not link
            st = _examined(root, full, rel, link)
            if isinstance(st, OSError):  # listed but not reachable (a folder with r but no x): not gone either
                walk.unreadable.append((rel, f"cannot be read ({st.strerror}); kept as it was"))
                continue
            if isinstance(st, str):
                shown = os.fsencode(rel).decode("utf-8", "backslashreplace")
                walk.skipped.append((shown, st))
                continue
            walk.files.append(FileStat(rel, st.st_mtime_ns, st.st_size))
        plain = plain and noted == len(walk.skipped) + len(walk.unreadable) + len(walk.leftovers)
        folder = "" if dirpath == root else os.path.relpath(dirpath, root).replace(os.sep, "/")
        walk.folders[folder] = Folder(_changed_ns(dirpath), tuple(dirnames), plain)
    return walk


def _changed_ns(path: str) -> int:
    """When a folder's list of entries last changed, as far as its own times say (-1: cannot tell). ctime too:
    a tool that sets mtime back (rsync -t, a restore) cannot set ctime."""
    try:
        st = os.stat(path)
    except OSError:
        return -1
    return max(st.st_mtime_ns, st.st_ctime_ns)


def walk_known(vault: Path, folders: dict[str, Folder], pages: Sequence[str], settled_before_ns: int) -> Stats | None:
    """The mtimes and sizes of ``pages`` (the indexed page paths), taken without listing any folder, or None
    when any folder may have changed since the last full walk listed it (the caller then walks in full).

    Why this is safe: a folder's mtime and ctime move whenever an entry is created, removed or renamed in it,
    so a folder whose times are as recorded holds the same names as when it was listed. What they do not
    cover is a page edited in place (its folder's times stay): every known page is still stat'ed, so an edit
    at any depth is seen by its own mtime and size; only the listing is skipped. A folder is trusted only
    when its recorded time is older than ``settled_before_ns`` (the last full walk's start, less a settling
    margin), so a change in the same clock tick as its listing, or during the walk, is never taken as none;
    one that held a link, a skipped or unreadable file or a leftover is always listed again (those are judged
    by the full walk). A page gone, or no longer a regular file, without its folder's times moving means this
    file system does not keep folder times: None too.
    """
    root = str(vault)
    pending = [""]
    while pending:
        folder = pending.pop()
        known = folders.get(folder)
        if known is None or not known.plain or not 0 <= known.changed_ns < settled_before_ns:
            return None
        if _changed_ns(os.path.join(root, folder) if folder else root) != known.changed_ns:
            return None
        pending += [f"{folder}/{sub}" if folder else sub for sub in known.subfolders]
    # one C-level pass (map, attrgetter, fromiter): at a million pages a Python loop with a FileStat per page
    # cost more than the stats themselves
    try:
        found = np.fromiter(map(_FIELDS, map(os.stat, map(os.path.join(root, "").__add__, pages))), _ROW, len(pages))
    except OSError:
        return None
    if ((found["mode"] & 0o170000) != stat.S_IFREG).any():  # stat.S_ISREG, on the column
        return None
    return Stats(found["mtime_ns"], found["size"])


class Stats(NamedTuple):
    """The mtimes and sizes of a list of pages, in its order."""

    mtime_ns: npt.NDArray[np.int64]
    size: npt.NDArray[np.int64]


_FIELDS = operator.attrgetter("st_mtime_ns", "st_size", "st_mode")
_ROW = np.dtype([("mtime_ns", np.int64), ("size", np.int64), ("mode", np.int64)])


def _examined(root: str, full: str, rel: str, link: bool) -> os.stat_result | OSError | str:
    """A page-named file's stat, the error that kept it from being read, or why it is not indexed."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands undecodable name bytes over as lone surrogates
        return "the file name is not valid UTF-8; not indexed: rename it in a file manager"
    if link:
        real = os.path.realpath(full)
        if not real.startswith(root + os.sep):
            return "symbolic link to a file outside the vault; not indexed"
    try:
        st = os.stat(full)
    except FileNotFoundError as err:  # a link to nothing, or gone since it was listed
        return f"cannot stat: {err.strerror}"
    except OSError as err:
        return err
    if not stat.S_ISREG(st.st_mode):
        return f"{kind_of(st.st_mode)}, not a regular file; never read, not indexed"
    return st
