"""Walking the vault: every visible *.md file with its size and mtime, nothing else."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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


TEMP_PREFIX, TEMP_SUFFIX = ".sentinel-", ".tmp"  # ``atomic_write``'s temporary files


def walk_vault(vault: Path) -> VaultWalk:
    """All visible .md files below ``vault`` (hidden folders skipped, symlinks leaving the vault refused, FIFOs,
    sockets and devices refused), the files passed over with the reason, and the folders that could not be
    listed (their pages are not gone: the caller keeps them)."""
    root = str(vault)
    walk = VaultWalk([], [], [], [])

    def unlistable(err: OSError) -> None:
        folder = os.path.relpath(err.filename, root).replace(os.sep, "/") if err.filename else "."
        walk.unreadable.append((folder, f"folder cannot be read ({err.strerror}); its pages are kept as they were"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unlistable):
        dirnames[:] = sorted(d for d in dirnames if not is_hidden(d))
        for name in filenames:
            full = os.path.join(dirpath, name)
            if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
                walk.leftovers.append(full)
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if not_vault_content(rel):
                continue
            st = _examined(root, full, rel)
            if isinstance(st, OSError):  # listed but not reachable (a folder with r but no x): not gone either
                walk.unreadable.append((rel, f"cannot be read ({st.strerror}); kept as it was"))
                continue
            if isinstance(st, str):
                shown = os.fsencode(rel).decode("utf-8", "backslashreplace")
                walk.skipped.append((shown, st))
                continue
            walk.files.append(FileStat(rel, st.st_mtime_ns, st.st_size))
    return walk


def _examined(root: str, full: str, rel: str) -> os.stat_result | OSError | str:
    """A page-named file's stat, the error that kept it from being read, or why it is not indexed."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands undecodable name bytes over as lone surrogates
        return "the file name is not valid UTF-8; not indexed: rename it in a file manager"
    if os.path.islink(full):
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
