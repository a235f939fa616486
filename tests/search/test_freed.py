"""Freed memory among live allocations goes back to the system (real glibc, real allocations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sentinel.search import freed


def _anon_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    raise AssertionError("no RssAnon in /proc/self/status")


def test_freed_holes_in_the_heap_are_given_back() -> None:
    """64 KB blocks (below glibc's mmap threshold: from the heap) freed between 1 KB ones that stay: the free
    pages sit in holes the heap's top cannot return, until ``give_back``."""
    if not freed.give_back():
        pytest.skip("not glibc: malloc_trim is not available")
    blocks = []
    kept = []
    for _ in range(800):
        blocks.append(bytearray(64 << 10))  # zero-filled: resident
        kept.append(bytearray(1 << 10))
    before = _anon_kib()
    del blocks
    after_free = _anon_kib()
    assert freed.give_back()
    given = after_free - _anon_kib()
    assert before - after_free < 10_000  # freeing alone returned little (the holes stay mapped)...
    assert given > 30_000  # ...give_back returned most of the 50 MB
    assert len(kept) == 800
