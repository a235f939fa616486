"""The sibling gate: two names that share a word and each carry a word the other lacks are two things.

Protects against the commonest wrong merge of a small model: neighbours named alike. ``Dark mode`` / ``Light
mode``, ``Plus plan`` / ``Standard plan``, ``Core themes`` / ``Community themes`` replace one word;
``Undo history`` / ``File history`` and ``Quick search`` / ``Global search`` are neighbouring features;
``Share notes with your team`` / ``Team Sync`` is a description beside the thing. In each the shared word is
the family, the differing words tell the members apart. Words are compared folded (case, diacritics,
hyphen/space, plural: ``Core plugin`` / ``core-plugins`` is one name), and a differing word spelt within a
letter or two of its counterpart (``colour`` / ``color``, at least five letters) counts as the same word. A
translation that keeps some words (``Set up Obsidian Sync`` / ``Obsidian Sync einrichten``) is refused too:
a missed merge, which is cheap.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

from sentinel.gates import Verdict
from sentinel.vault.name_words import folded

_CLOSE_SPELLING = 0.85
_CLOSE_MIN_LETTERS = 5


def _close(a: str, b: str) -> bool:
    shortest = min(len(a), len(b))
    return shortest >= _CLOSE_MIN_LETTERS and SequenceMatcher(None, a, b).ratio() >= _CLOSE_SPELLING


def _unmatched(only_a: list[str], only_b: list[str]) -> bool:
    """True when some word of one side has no close spelling left on the other (matched one to one)."""
    remaining = list(only_b)
    for word in only_a:
        match = next((other for other in remaining if _close(word, other)), None)
        if match is None:
            return True
        remaining.remove(match)
    return bool(remaining)


def no_replaced_word(a: str, b: str) -> Verdict[str]:
    """Refused when the names share a word and each has a word the other lacks (siblings, neighbours)."""
    words_a, words_b = Counter(folded(a)), Counter(folded(b))
    if not words_a & words_b:
        return Verdict(True)
    only_a, only_b = list((words_a - words_b).elements()), list((words_b - words_a).elements())
    if not only_a or not only_b:
        return Verdict(True)  # one adds words to the other: the shape gate's case
    if _unmatched(only_a, only_b):
        return Verdict(False, f"'{a}' / '{b}' share a word and each has one the other lacks (siblings)")
    return Verdict(True)
