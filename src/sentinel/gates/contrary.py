"""The contrary gate: a "same" stands only if the model also denies the contrary.

Protects against a model that agrees with whatever it is asked (the reversal gate's swap does not catch it:
the small model says "same" both ways round). After two "same" answers the model is asked the opposite
question, "are these two different things, or is one a kind, a part or a version of the other?"; only a plain
"no" lets the merge on. A model that says yes to everything therefore merges nothing.
"""

from __future__ import annotations

from typing import Literal

from sentinel.gates import Verdict

YesNo = Literal["yes", "no", "unclear"]


def denies_difference(contrary: YesNo | None) -> Verdict[str]:
    """Passed only when the answer to "are these different things, or one a kind or part of the other?" is no."""
    if contrary == "no":
        return Verdict(True)
    return Verdict(False, f'asked "different things, or a kind or part?" the model said {contrary or "nothing"}')
