"""One maintenance pass per index at a time, on this machine: an advisory lock on a file beside the index.

The Redis lock (``cluster_lock``) keeps workers on many machines apart; this one also covers a pass started by
hand with ``sentinel maintain`` while the worker runs one, which Redis may not even be there to see.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

from sentinel.errors import Conflict
from sentinel.paths import maintain_lock_path
from sentinel.settings import Settings


class PassBusy(Conflict, RuntimeError):
    """Another maintenance pass holds this index."""


@contextmanager
def local_pass_lock(settings: Settings) -> Iterator[None]:
    """Hold the index's pass lock for the duration, or raise ``PassBusy`` at once if someone else holds it.
    The kernel drops the lock when the holder dies, so a killed pass never leaves it stuck."""
    path = maintain_lock_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as busy:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            raise PassBusy(f"a maintenance pass is already running on this index ({holder}; lock {path})") from busy
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        yield
    finally:
        os.close(fd)
