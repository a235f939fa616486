"""The consistency gate: a "same" stands only if the sentences where both names appear fit one thing.

Protects against a merge judged from the names alone: ``Layout`` (the screen arrangement) and ``Layouts`` (a
plugin) look like one name, and only their sentences tell them apart. The model is shown the sentences where
each name appears in the sources and asked whether all of them speak of one thing; only a "yes" lets the merge
on, and only when both names have sentences at all: a name the sources never use in a sentence cannot be
checked, so it is not merged.
"""

from __future__ import annotations

from collections.abc import Sequence

from sentinel.gates import Verdict
from sentinel.gates.contrary import YesNo


def contexts_agree(name_sentences: Sequence[str], title_sentences: Sequence[str], answer: YesNo | None) -> Verdict[str]:
    """Passed when both names appear in sentences and the model said those sentences speak of one thing."""
    if not name_sentences or not title_sentences:
        return Verdict(False, "a name the sources never use in a sentence cannot be checked against the other")
    if answer != "yes":
        return Verdict(False, f"asked whether the sentences fit one thing the model said {answer or 'nothing'}")
    return Verdict(True)
