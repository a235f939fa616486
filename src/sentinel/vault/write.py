"""Writing to the vault: atomically, so Obsidian, sync tools and the index never see half a file, and exactly,
so a write changes only the bytes it means to change."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sentinel.errors import Conflict, Unavailable

# The process umask, read once at import (reading it means setting it): new pages get the mode any editor
# would give them, not mkstemp's private 0600.
_UMASK = os.umask(0o022)
os.umask(_UMASK)

BOM = "\ufeff"
_BARE_LF = re.compile(r"(?<!\r)\n")


class PageUndecodable(ValueError):
    """A page that is not valid UTF-8: Sentinel reads it (with replacement characters) but never rewrites it,
    because writing the decoded text back would destroy the bytes it could not decode."""


class WriteFailed(Unavailable, OSError):
    """The file system refused a write (full disk, read-only mount, permissions); the old file is untouched."""


class NotARegularFile(OSError):
    """A vault name that is a FIFO, socket or device: opening it to read could block forever, so it never is."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def read_regular(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file, else ``NotARegularFile``: opened without blocking (a FIFO
    with no writer would hang a plain open) and checked on the open descriptor, so a swap between check and read
    cannot slip a FIFO in."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(errno.EINVAL, f"it is {kind_of(mode)}, not a page; it is never read", str(path))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


class PageChanged(Conflict, RuntimeError):
    """The page changed on disk (another editor wrote it) between reading it and renaming its new version over
    it; nothing was written, so that editor's text is not lost."""


def atomic_write(path: Path, text: str | bytes, *, expect: bytes | None = None) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder, an fsync and a rename.

    Folders are created on first write. An existing file keeps its permission bits; a new one gets 0666 less
    the umask, as an editor would create it. A crash at any point leaves the old file or the new one, never half;
    a refused write raises ``WriteFailed`` with the file system's reason and leaves no temporary file. With
    ``expect``, the page is read again right before the rename and must still hold those bytes, else
    ``PageChanged`` and nothing is written (the last moment another writer's text could be lost).
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        _replace(path, data, expect)
    except OSError as err:
        raise WriteFailed(err.errno, f"{err.strerror}; nothing was changed", str(path)) from err


def append_in_place(path: Path, data: bytes) -> None:
    """Add ``data`` at the end of the page with one ``O_APPEND`` write, as an editor appending does: text another
    writer appended meanwhile stays, before or after it. A refused or short write (a full disk) is cut back off,
    so the page is as it was, and raises ``WriteFailed``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        raise WriteFailed(err.errno, f"{err.strerror}; nothing was changed", str(path)) from err
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise WriteFailed(errno.EINVAL, f"it is {kind_of(before.st_mode)}, not a page", str(path))
        os.set_blocking(fd, True)
        try:
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        except OSError as err:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, before.st_size)
            raise WriteFailed(err.errno, f"{err.strerror}; nothing was changed", str(path)) from err
    finally:
        os.close(fd)


def _replace(path: Path, data: bytes, expect: bytes | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".sentinel-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if expect is not None and read_regular(path) != expect:
            raise PageChanged(str(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def text_for_reading(data: bytes) -> str:
    """A page's text as the index reads it (UTF-8, undecodable bytes replaced, BOM dropped): never written back."""
    return data.decode("utf-8", errors="replace").removeprefix(BOM)


def read_text(path: Path) -> str:
    return text_for_reading(read_regular(path))


@dataclass(frozen=True)
class ExactPage:
    """A page decoded without loss: its text (BOM dropped, line endings as they are) and how to write it back."""

    text: str
    bom: bool
    newline: str  # "\r\n" when every line of the page ends so, else "\n"

    def appended(self, added: str) -> bytes:
        """The bytes ``added`` becomes at the end of this page (its line ending; a BOM only starts a page)."""
        if self.newline == "\r\n":
            added = added.replace("\r\n", "\n").replace("\n", "\r\n")
        return added.encode("utf-8")

    def bytes_of(self, kept: str, added: str = "") -> bytes:
        """The page as ``kept`` (text of this page, bytes kept as they are, mixed line endings included) followed
        by ``added`` (new text, given the page's line ending), with the page's BOM if it had one."""
        if self.newline == "\r\n":
            added = added.replace("\r\n", "\n").replace("\n", "\r\n")
        return ((BOM if self.bom else "") + kept + added).encode("utf-8")


def read_exact(path: Path, relpath: str) -> ExactPage:
    """The page at ``path`` decoded exactly, or ``PageUndecodable`` naming the page, the byte and what to do."""
    data = read_regular(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise PageUndecodable(
            f"'{relpath}' is not valid UTF-8 (byte {err.start} is 0x{data[err.start]:02x}); Sentinel never rewrites a "
            "page it cannot read exactly, so nothing was changed. Re-save it as UTF-8 in an editor, then try again."
        ) from err
    bom = text.startswith(BOM)
    text = text.removeprefix(BOM)
    crlf = "\r\n" in text and not _BARE_LF.search(text)
    return ExactPage(text, bom, "\r\n" if crlf else "\n")
