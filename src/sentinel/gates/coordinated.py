"""The coordination gate: two spellings of one name joined by "and" in one sentence are two things.

Protects against the merge of a singular and a plural that name different things: ``Workspace`` (the window
arrangement) and ``Workspaces`` (the plugin that saves them), ``Layout`` / ``Layouts``. Their words fold to
one name, so the sibling and contexts gates leave them alone, and every check after that is the model's word.
But a vault that tells them apart says so: "Commands for Workspace and the Workspaces plugin" lists two
things, and nobody writes "the tag and the tags" for one. Only "and" (en ``and``, de ``und``, es ``y``/``e``,
tr ``ve``/``ile``) with at most an article between counts: "or" often offers one thing in two numbers ("a
note or notes"), and a spelling inside the other's occurrence does not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sentinel.gates import Verdict
from sentinel.gates.verbatim import normalise
from sentinel.vault.name_words import variant_key

_AND = r"(?:and|und|y|e|ve|ile)"
_ARTICLE = r"(?:the|a|an|der|die|das|den|dem|des|ein|eine|einen|el|la|los|las|un|una|bir)"
_BETWEEN = re.compile(rf"\W*{_AND}\s+(?:{_ARTICLE}\s+)?\W*", re.IGNORECASE)


def _spans(text: str, name: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(rf"(?<!\w){re.escape(normalise(name))}(?!\w)", text)]


def _joined(sentence: str, a: str, b: str) -> bool:
    text = normalise(sentence)
    spans_a, spans_b = _spans(text, a), _spans(text, b)
    for first, second in ((spans_a, spans_b), (spans_b, spans_a)):
        for _, end in first:
            if any(_BETWEEN.fullmatch(text, end, start) for start, _ in second if start > end):
                return True
    return False


def spellings_kept_apart(a: str, b: str, sentences: Iterable[str]) -> Verdict[str]:
    """Fails when ``a`` and ``b`` are spellings of one name (not the same letters) and a sentence joins them
    with "and": the vault lists them as two things."""
    if variant_key(a) != variant_key(b) or normalise(a) == normalise(b):
        return Verdict(True)
    for sentence in sentences:
        if _joined(sentence, a, b):
            return Verdict(False, f"the vault lists {a!r} and {b!r} as two things: {sentence[:120]!r}")
    return Verdict(True)
