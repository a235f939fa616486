"""Memory a large load freed, given back to the system rather than kept by the C allocator.

A whole view load and a whole read of the held postings free hundreds of MB of temporaries (row batches, sorts,
permutations) in among the arrays they keep; glibc's ``malloc`` returns to the system only the free memory at the
top of its heap, so the rest stayed counted in the process's RSS (100k pages: 53 MB after the view load, 45 MB
after the first queries; docs/scale.md, "Peak RSS at 1M (stop 46)"). ``malloc_trim(0)`` releases the free pages
anywhere in the heap (the allocator keeps the address space and maps them again when they are next used).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim  # glibc's; other C libraries lack it
    except (AttributeError, OSError):
        return None


def give_back() -> bool:
    """Release the allocator's free pages to the system; False where the C library cannot (not glibc)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
