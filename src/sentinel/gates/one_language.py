"""The one-language gate: two names that share no word are merged only as a translation the vault shows.

Protects against the wrong merges the other name gates cannot see, because nothing in the names' shape tells
them apart: neighbouring features (``Command palette`` / ``Quick switcher``, ``Status bar`` / ``Sidebar``), a
term and a broader one (``Metadata`` / ``Properties``, ``Frontmatter`` / ``Properties``), two things of one
kind (``Bookmarks`` / ``Tags``), a wrong "translation" (``Backlinks`` / ``Ausgehende Links``, which is
Outgoing links). A small model calls such pairs "same" both ways round, denies they differ and finds the
sentences consistent (measured with Qwen2.5-Coder-0.5B: bench/merges.py), so asking it again does not help.
Real synonyms within one language are rare in a vault, and a missed merge costs one unresolved link, so such a
pair is left to the person ("unclear"), and the model is asked only about a translation, which the vault must
show before the model's word counts: each name keeps to one language (every sentence it appears in whose
language shows is in that language) and the two languages differ. A name the vault uses in two languages
(``Tags`` and ``Bookmarks`` in German pages too, ``Backlinks`` in a German sentence) is a loanword of both,
not evidence of one language, and a name with no sentence that shows a language shows nothing: either way the
pair is held to be one language (erring toward no merge).
"""

from __future__ import annotations

from collections.abc import Sequence

from sentinel.gates import Verdict
from sentinel.gates.definition import language_of
from sentinel.vault.name_words import folded


def _language(sentences: Sequence[str]) -> str:
    """The one language every sentence that shows a language is in, or "" (none shows one, or two do)."""
    found = {language for language in map(language_of, sentences) if language}
    return found.pop() if len(found) == 1 else ""


def shown_as_translation(a: str, b: str, a_sentences: Sequence[str], b_sentences: Sequence[str]) -> Verdict[str]:
    """Passes when the names share a word (the shape gates' pair) or the vault shows them in two languages."""
    if set(folded(a)) & set(folded(b)):
        return Verdict(True)
    a_language, b_language = _language(a_sentences), _language(b_sentences)
    if a_language and b_language and a_language != b_language:
        return Verdict(True)
    shown = f"{a!r}: {a_language or 'no one language'}, {b!r}: {b_language or 'no one language'}"
    return Verdict(False, f"no word in common and not shown as a translation ({shown}); add an alias by hand")
