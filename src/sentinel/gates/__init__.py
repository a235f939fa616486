"""Gates: the deterministic checks that decide what the model's output may change.

The model transports (copies concepts, says what a page is, says whether two names are the same); each module
here is one rule that code applies to that output, the same way every run. A gate never asks the model to be
careful: it drops, refuses or defers.

The convention every gate module follows (the mutation harness, ``tests/gates/mutate.py``, relies on it):
- a check is a public function of its module that returns a ``Verdict``, and callers call it as
  ``module.function(...)`` (never imported by name), so replacing the module attribute removes the check
  everywhere at once;
- a module may hold several checks (each removable on its own) and helpers (private, or not returning a
  ``Verdict``);
- removing any one check (its ``Verdict`` replaced by "everything passes") makes at least one test fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

Item = TypeVar("Item")


@dataclass(frozen=True)
class Verdict(Generic[Item]):
    """What one check decided.

    ``passed``: the checked thing may go ahead (for a sorting check: nothing was dropped, or enough was kept).
    ``reason``: why it did not pass, in words naming the input and what to do; "" when it passed.
    ``kept`` / ``dropped``: for a check that sorts items, which went through and which were stopped.
    ``caveat``: what the check could not look at although it passed (e.g. no usage report to compare).
    """

    passed: bool
    reason: str = ""
    kept: list[Item] = field(default_factory=list)
    dropped: list[Item] = field(default_factory=list)
    caveat: str = ""


def sorted_items(kept: list[Item], dropped: list[Item], reason: str = "") -> Verdict[Item]:
    """The verdict of a check that sorts items: passed when nothing was dropped."""
    return Verdict(not dropped, reason if dropped else "", kept, dropped)
