"""The definition gate: a concept page is written only from two sentences of the sources that define it.

Protects wiki/ from pages about names the vault merely mentions: mentioned a hundred times is still not
defined once. A sentence counts only when it contains the concept's name verbatim (``verbatim`` rules) and
the model said it says what the thing is; two distinct such sentences are enough, one is not, and none leaves
the concept in the growth queue as "mentioned but never defined".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sentinel.gates.verbatim import contains_verbatim, normalise

REQUIRED_DEFINITIONS = 2


@dataclass(frozen=True)
class Defining:
    sentence: str
    source: str  # vault path of the page the sentence is quoted from


def names_concept(sentence: str, name: str) -> bool:
    """True when the sentence carries the concept's name verbatim."""
    return contains_verbatim(normalise(sentence), name)


@dataclass(frozen=True)
class DefinitionVerdict:
    defining: list[Defining]  # distinct sentences that carry the name and were said to define it
    enough: bool  # a concept page may be written from them


def judge_definitions(candidates: Iterable[Defining], name: str) -> DefinitionVerdict:
    """Keep the distinct candidate sentences that name the concept; enough when there are at least two."""
    kept: list[Defining] = []
    seen: set[str] = set()
    for candidate in candidates:
        key = normalise(candidate.sentence)
        if key in seen or not names_concept(candidate.sentence, name):
            continue
        seen.add(key)
        kept.append(candidate)
    return DefinitionVerdict(kept, len(kept) >= REQUIRED_DEFINITIONS)
