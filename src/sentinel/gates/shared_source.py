"""The shared-source gate: a translation is merged only where the two names' sentences share something untranslated.

Protects against the wrong translation a small model vouches for: a German, Spanish or Turkish name and the
English title of a neighbouring feature (``Befehlspalette`` / ``Quick switcher``, ``Marcadores`` / ``Outline``,
``Rastgele Not`` / ``Daily notes``). The one-language gate lets such a pair through (the names keep to two
languages), and a model that agrees with everything then merges it; the model's word is the only evidence
left, and it is not enough. What a translation keeps is what is not language: the icon or image it embeds
(``lucide-search.svg``), the file name, the command, the key or the property in code (``Cmd+O``,
``--show-outline``, ``file.links``). So two names that share no word are asked only when a sentence where one
appears and a sentence where the other appears carry such a thing in common. Plain words in code (``list``)
and punctuation (``---``) do not count: they are said in every page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from sentinel.gates import Verdict
from sentinel.vault.name_words import folded

_FILE = re.compile(r"[\w.-]+\.(?:svg|png|jpe?g|gif|webp|mp4|mp3|pdf|canvas|base)\b", re.IGNORECASE)
_CODE = re.compile(r"`([^`\n]{3,80})`")
_LETTER, _NOT_LETTER = re.compile(r"[^\W\d_]"), re.compile(r"[\W\d_]")


def _untranslated(sentences: Iterable[str]) -> set[str]:
    """The attachment names and the code (a letter and something else: ``Cmd+O``, not ``list``) in the sentences."""
    found: set[str] = set()
    for sentence in sentences:
        found.update(name.casefold() for name in _FILE.findall(sentence))
        found.update(code for code in _CODE.findall(sentence) if _LETTER.search(code) and _NOT_LETTER.search(code))
    return found


def share_a_source(a: str, b: str, a_sentences: Sequence[str], b_sentences: Sequence[str]) -> Verdict[str]:
    """Passes when the names share a word (not a translation: the shape gates' pair) or the sentences of each
    carry an attachment or a piece of code in common."""
    if set(folded(a)) & set(folded(b)):
        return Verdict(True)
    shared = _untranslated(a_sentences) & _untranslated(b_sentences)
    if shared:
        return Verdict(True)
    return Verdict(False, f"{a!r} / {b!r}: no embed or code in common, nothing but the model says they are one")
