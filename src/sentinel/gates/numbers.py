"""The numbers gate: names that carry different numbers are two things.

Protects against merging numbered siblings: ``Version 1.4`` / ``Version 1.5``, ``Chapter 2`` / ``Chapter 3``,
``iOS 16`` / ``iOS 17``. Digits count as written (``1.4`` is the numbers 1 and 4); the number words one to ten
of en/de/es/tr count as their digit, so ``2-factor authentication`` / ``Zwei-Faktor-Authentifizierung`` keeps
its number and is not refused. Words that are also articles (de ``ein``/``eine``, es ``un``/``una``, tr
``bir``) are left out, and so is tr ``on`` (ten; English: on). The gate refuses only when both
names carry numbers and the numbers differ; a number on one side only (``Windows`` / ``Windows 11``) is the
shape gate's case.
"""

from __future__ import annotations

import re
from collections import Counter

from sentinel.gates import Verdict
from sentinel.vault.name_words import raw_words

_DIGITS = re.compile(r"\d+")
_WORDS = {
    word: str(number)
    for number, words in {
        1: "one eins uno",
        2: "two zwei dos iki",
        3: "three drei tres üç",
        4: "four vier cuatro dört",
        5: "five fünf cinco beş",
        6: "six sechs seis altı",
        7: "seven sieben siete yedi",
        8: "eight acht ocho sekiz",
        9: "nine neun nueve dokuz",
        10: "ten zehn diez",
    }.items()
    for word in words.split()
}


def _numbers(name: str) -> Counter[str]:
    found: Counter[str] = Counter(str(int(d)) for d in _DIGITS.findall(name))
    found.update(_WORDS[w] for w in raw_words(name) if w in _WORDS)
    return found


def same_numbers(a: str, b: str) -> Verdict[str]:
    """Refused when both names carry numbers (digits or number words) and those numbers differ."""
    numbers_a, numbers_b = _numbers(a), _numbers(b)
    if numbers_a and numbers_b and numbers_a != numbers_b:
        return Verdict(False, f"'{a}' / '{b}' carry different numbers")
    return Verdict(True)
