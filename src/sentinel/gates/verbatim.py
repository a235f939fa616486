"""Gate 1: a concept that does not appear verbatim in the text it was extracted from is dropped.

Protects the graph from invented names: the model is asked to copy, and whatever it did not copy is not a
concept. Not scored down: dropped.

Normalisation (the only latitude given), applied to both the concept and the text:
- Unicode NFKC (full-width letters, ligatures and compatibility forms fold to their plain spelling);
- case-folding (``Gamma-Ray Burst`` matches ``gamma-ray burst``);
- every run of whitespace, line breaks included, counts as one space.
The concept alone is also trimmed of wrapping markup a model adds around a copy: surrounding whitespace,
backticks, quotes, asterisks, underscores, brackets (``[[name]]``) and trailing ``. , ; :``.
Nothing else folds: hyphens, apostrophes, accents and word order must match. The match must also sit on word
boundaries, so ``art`` is not found in ``start``. The text is the page as the model saw it: title line plus
body without frontmatter, link markup replaced by the words a reader sees.

The same gate keeps research honest (``keep_passages``): a passage goes into a source record only when it is
found in the text fetched from its page, and what is written is the page's own text at that place.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from sentinel.gates import Verdict, sorted_items

_SPACE = re.compile(r"\s+")
_WRAPPING = " \t\r\n`'\"*_[]“”‘’«»"
_TRAILING = ".,;:"


def normalise(text: str) -> str:
    """NFKC, case-folded, whitespace runs collapsed to one space, ends trimmed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def clean_concept(concept: str) -> str:
    """The concept without the wrapping markup a model puts around a copy; inner spacing collapsed."""
    previous = None
    text = concept
    while text != previous:
        previous = text
        text = text.strip(_WRAPPING).rstrip(_TRAILING)
    return _SPACE.sub(" ", text)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def contains_verbatim(text_normalised: str, concept: str) -> bool:
    """True when ``concept`` (normalised here) occurs in already-normalised text on word boundaries."""
    needle = normalise(concept)
    if not needle:
        return False
    start = text_normalised.find(needle)
    while start != -1:
        end = start + len(needle)
        before_ok = start == 0 or not (_is_word_char(needle[0]) and _is_word_char(text_normalised[start - 1]))
        after_ok = end == len(text_normalised) or not (
            _is_word_char(needle[-1]) and _is_word_char(text_normalised[end])
        )
        if before_ok and after_ok:
            return True
        start = text_normalised.find(needle, start + 1)
    return False


def keep_verbatim(concepts: Iterable[str], text: str) -> Verdict[str]:
    """Keep the concepts found verbatim in ``text`` (see the module docstring), each once, in order given;
    the dropped ones are returned as the model wrote them."""
    haystack = normalise(text)
    kept: list[str] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for raw in concepts:
        concept = clean_concept(raw)
        key = normalise(concept)
        if key in seen:
            continue
        seen.add(key)
        if contains_verbatim(haystack, concept):
            kept.append(concept)
        else:
            dropped.append(raw)
    return sorted_items(kept, dropped, "not verbatim in the text: " + ", ".join(dropped))


def keep_passages(passages: Iterable[str], text: str) -> Verdict[str]:
    """Keep the passages found in ``text`` character for character (only a run of whitespace may stand for another
    run), each as ``text`` spells it, so what is kept is the source's text and never the copy; the dropped ones are
    returned as given. Stricter than ``keep_verbatim``: no case folding, no trimming, a passage is a quotation."""
    kept: list[str] = []
    dropped: list[str] = []
    for passage in passages:
        words = passage.split()
        found = re.search(r"\s+".join(re.escape(word) for word in words), text) if words else None
        if found and found.group(0) not in kept:
            kept.append(found.group(0))
        elif not found:
            dropped.append(passage)
    return sorted_items(kept, dropped, f"{len(dropped)} passages not verbatim in the fetched text")
