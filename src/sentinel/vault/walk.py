"""Walking the vault: every visible *.md file with its size and mtime, nothing else."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sentinel.paths import is_hidden, not_vault_content


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


def walk_vault(vault: Path) -> tuple[list[FileStat], list[tuple[str, str]]]:
    """All visible .md files below ``vault`` (hidden folders skipped, symlinks leaving the vault refused),
    and the files passed over with the reason."""
    root = str(vault)
    files: list[FileStat] = []
    skipped: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not is_hidden(d))
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if not_vault_content(rel):
                continue
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:  # os.walk hands undecodable name bytes over as lone surrogates
                shown = os.fsencode(rel).decode("utf-8", "backslashreplace")
                skipped.append((shown, "the file name is not valid UTF-8; not indexed: rename it in a file manager"))
                continue
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
