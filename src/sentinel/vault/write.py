"""Writing to the vault: atomically, so Obsidian, sync tools and the index never see half a file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

# The process umask, read once at import (reading it means setting it): new pages get the mode any editor
# would give them, not mkstemp's private 0600.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename.

    Folders are created on first write. An existing file keeps its permission bits; a new one gets 0666 less
    the umask, as an editor would create it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".sentinel-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def read_text(path: Path) -> str:
    """A page's text as the index reads it (UTF-8, undecodable bytes replaced, BOM dropped)."""
    return path.read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
