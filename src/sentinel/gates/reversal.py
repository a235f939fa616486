"""The reversal gate: a merge of two names is made only when the model says "same" both ways round.

Protects the graph from wrong merges, which destroy information irreversibly (a missed merge costs one
unresolved link, repaired later by an alias). The model's wrong merges contradict its own other answers, so
the pair is swapped and asked again: only a repeated "same" becomes an alias entry; a "same" that does not
survive the swap is counted ``unconfirmed``.
"""

from __future__ import annotations

from typing import Literal

from sentinel.gates import Verdict

Answer = Literal["same", "different", "unclear"]
Outcome = Literal["same", "different", "unclear", "unconfirmed"]


def confirmed_by_reversal(first: Answer, swapped: Answer | None) -> Verdict[str]:
    """Passed when the model said "same" as asked and again with the pair swapped."""
    if first == "same" and swapped == "same":
        return Verdict(True)
    return Verdict(False, f'asked "same?" the model said {first}, swapped {swapped or "nothing"}: unconfirmed')
