"""The reversal gate: a merge of two names is made only when the model says "same" both ways round.

Protects the graph from wrong merges, which destroy information irreversibly (a missed merge costs one
unresolved link, repaired later by an alias). The model's wrong merges contradict its own other answers, so
the pair is swapped and asked again: only a repeated "same" becomes an alias entry; a "same" that does not
survive the swap is counted ``unconfirmed``.
"""

from __future__ import annotations

from typing import Literal

Answer = Literal["same", "different", "unclear"]
Outcome = Literal["same", "different", "unclear", "unconfirmed"]


def confirmed_by_reversal(first: Answer, swapped: Answer | None) -> Outcome:
    """The run's verdict for a pair from the answer as asked and, after a "same", the answer swapped."""
    if first != "same":
        return first
    return "same" if swapped == "same" else "unconfirmed"
