"""The shape gate: a pair whose names differ only by added words defers, whatever the model answers.

Protects against the merge code cannot judge: ``gamma-ray burst`` / ``short gamma-ray burst`` is a subclass
and ``Ariel`` / ``Ariel Space Telescope`` is an expansion, and the two have an identical shape: one name's
words appear, in order, inside the other's (words compared folded: case, diacritics, hyphens and plurals
aside, so ``gamma-ray bursts`` / ``short gamma ray burst`` is the same shape). Telling them apart needs
knowledge of the subject, so neither is merged; the pair is counted ``unclear`` without asking, and stays a
missed merge the user can repair with an alias.
"""

from __future__ import annotations

from sentinel.gates import Verdict
from sentinel.vault.name_words import folded


def _in_order(short: list[str], long: list[str]) -> bool:
    remaining = iter(long)
    return all(word in remaining for word in short)


def no_added_words(a: str, b: str) -> Verdict[str]:
    """Refused (the pair defers) when one name's words are a proper, in-order subset of the other's (subclass
    or expansion)."""
    words_a, words_b = folded(a), folded(b)
    if not words_a or not words_b or len(words_a) == len(words_b):
        return Verdict(True)
    short, long = sorted((words_a, words_b), key=len)
    if _in_order(short, long):
        return Verdict(False, f"'{a}' / '{b}': one name is the other with words added (subclass or expansion?)")
    return Verdict(True)
