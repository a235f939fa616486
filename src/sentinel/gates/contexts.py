"""The contexts gate: two names that one sentence of the sources names apart are two things.

Protects against a "same" that the vault itself contradicts: "Switch between **Dark mode** and **Light
mode**", "**Links** and **Internal links** differ in ..." — where the notes name both in one sentence, each
as itself, they are two things to the person who wrote them, whatever the model says. Only names that are
not spellings of one name are checked (``Core plugin`` and ``core plugins`` often share a sentence: "each
core plugin ... the core plugins"); an occurrence inside the other name's occurrence does not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sentinel.gates import Verdict
from sentinel.gates.verbatim import normalise
from sentinel.vault.name_words import variant_key


def _spans(text: str, name: str) -> list[tuple[int, int]]:
    needle = re.escape(normalise(name))
    return [m.span() for m in re.finditer(rf"(?<!\w){needle}(?!\w)", text)]


def _alone(spans: list[tuple[int, int]], within: list[tuple[int, int]]) -> bool:
    """Some span not inside any of ``within`` (``Links`` inside ``Internal links`` is not ``Links`` alone)."""
    return any(
        not any(outer_start <= start and end <= outer_end for outer_start, outer_end in within) for start, end in spans
    )


def _apart(sentence: str, a: str, b: str) -> bool:
    text = normalise(sentence)
    spans_a, spans_b = _spans(text, a), _spans(text, b)
    return _alone(spans_a, spans_b) and _alone(spans_b, spans_a)


def never_named_apart(a: str, b: str, sentences: Iterable[str]) -> Verdict[str]:
    """Refused when some sentence names both ``a`` and ``b``, neither only inside the other (and they are not
    spellings of one name); the sentence is the reason."""
    if variant_key(a) == variant_key(b):
        return Verdict(True)
    apart = next((sentence for sentence in sentences if _apart(sentence, a, b)), None)
    if apart is not None:
        return Verdict(False, f"one sentence names '{a}' and '{b}' apart: {apart}")
    return Verdict(True)
