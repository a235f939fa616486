"""The words of a name, folded so that the spellings of one name compare equal.

One fold for every place that asks "are these two spellings of one name?" (candidate pairing, the name gates,
the concept step's variant check): case, diacritics, hyphen/underscore/space and a plural ending are ignored.
Diacritics go by the lexical fold's rules (``sentinel.index.fold.without_latin_marks``): Latin accents and
Turkish ``ı`` go, marks that make another letter stay (``が`` and ``か`` are two names' words).

Plural endings, per word (a word of four letters or more, never cut below three):
- en: ``-ies`` -> ``-y`` (entries/entry), ``-es`` after s/x/z/ch/sh (boxes/box), ``-s`` (plugins/plugin; not
  ``-ss``: class). A final ``s`` goes even from a singular (alias -> alia): both forms fold alike;
- es: ``-iones`` -> ``-ion`` (funciones/función), ``-s`` (filtros/filtro);
- de: ``-ungen`` -> ``-ung`` (Einstellungen/Einstellung), ``-s`` (Tags);
- tr: ``-lar``/``-ler`` where the vowel before it agrees (vowel harmony: ``lar`` after a, ı, o, u; ``ler`` after
  e, i, ö, ü), so ``Filtreler``/``Filtre`` fold together and English ``Handler`` keeps its ``ler``.
The fold errs towards keeping words apart: a plural it does not know (Box/Boxes) leaves two spellings unpaired,
which costs a missed merge, never a wrong one (a fold only pairs names; the gates and the model still decide).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from sentinel.index.fold import without_latin_marks

_WORD = re.compile(r"[^\W_]+")
_SIBILANT_ES = re.compile(r"..(?:[sxz]|ch|sh)es$")
_BACK, _FRONT = set("aıou"), set("eiöü")


def raw_words(name: str) -> list[str]:
    """The name's words, case-folded, with their diacritics (hyphens, underscores and punctuation split words)."""
    # Turkish İ case-folds to i + a combining dot, which is no word character: the dot goes (İkinci -> ikinci).
    return _WORD.findall(unicodedata.normalize("NFKC", name).casefold().replace("\u0307", ""))


def _turkish_plural(word: str) -> bool:
    if len(word) < 6 or word[-3:] not in ("lar", "ler"):
        return False
    vowels = [c for c in word[:-3] if c in _BACK | _FRONT]
    return bool(vowels) and (vowels[-1] in _BACK) == (word[-3:] == "lar")


def singular(word: str) -> str:
    """``word`` (case-folded, with diacritics) without a plural ending of en/de/es/tr, and without diacritics."""
    if _turkish_plural(word):
        return without_latin_marks(word[:-3])
    plain = without_latin_marks(word)
    for ending, replacement in (("ies", "y"), ("iones", "ion"), ("ungen", "ung")):
        if plain.endswith(ending) and len(plain) - len(ending) + len(replacement) >= 3:
            return plain[: -len(ending)] + replacement
    if _SIBILANT_ES.search(plain):
        plain = plain[:-2]  # boxes/box, aliases/alias: then the -s rule below treats both alike
    if len(plain) >= 4 and plain.endswith("s") and not plain.endswith("ss"):
        return plain[:-1]
    return plain


def folded(name: str) -> list[str]:
    """The name's words, each folded by ``singular``: equal lists are spelling variants of one name."""
    return [singular(word) for word in raw_words(name)]


def variant_key(name: str) -> str:
    """One string per name up to case, diacritics, hyphen/space and plural: ``core-plugin`` == ``Core plugins``."""
    return " ".join(folded(name))


def marks(name: str, table: Mapping[str, str]) -> set[str]:
    """What the name's words mean in ``table`` (word, as spelt or folded, -> meaning), for the word-list gates."""
    found = set()
    for word in raw_words(name):
        meaning = table.get(word) or table.get(singular(word))
        if meaning:
            found.add(meaning)
    return found


def marked_apart(a: str, b: str, table: Mapping[str, str]) -> bool:
    """The word-list gates' rule: both names carry words of ``table`` and those words mean different things. A name
    that carries none is not told apart here (the shape gate's case, or the model's)."""
    marks_a, marks_b = marks(a, table), marks(b, table)
    return bool(marks_a and marks_b and marks_a != marks_b)


def table(meanings: Mapping[str, str]) -> dict[str, str]:
    """A word-list gate's table from ``{meaning: "word word ..."}``: every word, and its fold, -> its meaning."""
    return {
        form: meaning
        for meaning, words in meanings.items()
        for word in words.split()
        for form in (word, singular(word))
    }
