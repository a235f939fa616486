"""The one-language gate: two names of one language that share no word are not merged on a model's word.

Protects against the wrong merges the other name gates cannot see, because nothing in the names' shape tells
them apart: neighbouring features (``Command palette`` / ``Quick switcher``, ``Status bar`` / ``Sidebar``), a
term and a broader one (``Metadata`` / ``Properties``, ``Frontmatter`` / ``Properties``), two things of one
kind (``Bookmarks`` / ``Tags``). A small model calls such pairs "same" both ways round, denies they differ and
finds the sentences consistent (measured with Qwen2.5-Coder-0.5B: bench/merges.py), so asking it again does not
help. Real synonyms within one language are rare in a vault, and a missed merge costs one unresolved link, so
such a pair is left to the person ("unclear"). What stays with the model: translations (the sentences around
the two names are in different languages) and names that share a word, which the shape gates have checked.
The language of a name is the one most of its sentences are in (a name used across languages, ``Canvas``, has
none); where either is unknown, the pair is held to be one language (erring toward no merge).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sentinel.gates import Verdict
from sentinel.gates.definition import language_of
from sentinel.vault.name_words import folded


def _language(sentences: Sequence[str]) -> str:
    """The language most of the sentences are in, or "" when none holds a majority of those that show one."""
    counts = Counter(found for found in map(language_of, sentences) if found)
    if not counts:
        return ""
    language, seen = counts.most_common(1)[0]
    return language if seen * 2 > sum(counts.values()) else ""


def not_synonyms_in_one_language(
    a: str, b: str, a_sentences: Sequence[str], b_sentences: Sequence[str]
) -> Verdict[str]:
    """Refused (not the model's call) when ``a`` and ``b`` share no word and are not shown to be in two
    languages."""
    if set(folded(a)) & set(folded(b)):
        return Verdict(True)
    a_language, b_language = _language(a_sentences), _language(b_sentences)
    if a_language and b_language and a_language != b_language:
        return Verdict(True)
    return Verdict(False, f"'{a}' / '{b}' share no word and are not shown to be in two languages")
