"""Walking the vault: every visible *.md file with its size and mtime, nothing else."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileStat:
    relpath: str
    mtime_ns: int
    size: int


class VaultMissing(FileNotFoundError):
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


def _visible_page(name: str) -> bool:
    return not name.startswith(".") and name.lower().endswith(".md")


def is_vault_file(relpath: str) -> bool:
    """Whether a path (relative, with ``/``) is one the walk indexes: a visible .md file in no hidden folder."""
    parts = relpath.split("/")
    return _visible_page(parts[-1]) and not any(part.startswith(".") or part == ".." for part in parts[:-1])


def walk_vault(vault: Path) -> tuple[list[FileStat], list[tuple[str, str]]]:
    """All visible .md files below ``vault`` (hidden folders skipped, symlinks leaving the vault refused),
    and the files passed over with the reason."""
    root = str(vault)
    files: list[FileStat] = []
    skipped: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if not _visible_page(name):
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if os.path.islink(full):
                real = os.path.realpath(full)
                if not real.startswith(root + os.sep):
                    skipped.append((rel, "symbolic link to a file outside the vault; not indexed"))
                    continue
            try:
                st = os.stat(full)
            except OSError as err:
                skipped.append((rel, f"cannot stat: {err.strerror}"))
                continue
            files.append(FileStat(rel, st.st_mtime_ns, st.st_size))
    return files, skipped
