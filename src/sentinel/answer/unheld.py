"""A word no chunk holds, nor a word a typo away: what ``unnamed`` reads as a thing written lowercase.

Seen in the browser (stop 53, row 6 of bench/browser_turns_sixth.tsv): "¿puedo dictarle notas a obsidian con
alexa?" quoted the Sync FAQ's Apple Isolation mode. "alexa" is lowercase, after a bare "con", and its clause ends,
so no naming read it as a thing. A word the question writes that no chunk holds in any language's fold
(``fold.forms``) is a thing the vault never names, unless it is a typo of a word the vault holds ("obsidain",
"sincronisacion"): any word of the index's vocabulary (FTS5's ``chunks_vocab``, its folded and stemmed tokens)
within ``distance`` edits of one of its folds, an adjacent swap counting as one edit (optimal string alignment).
Stop 55 (h55d): nor a word of the question's language's dictionary (``common``: "grupo", "throw", "komplett"), so
that after any preposition a word such as "whatsapp" is read as a thing where the question's own everyday words
are not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from sentinel.index.fold import STEMMED, fold, forms
from sentinel.search.fts_query import quote
from sentinel.search.postings import VOCAB


def in_no_chunk(db: sqlite3.Connection, words: list[str]) -> bool:
    """Whether no chunk holds all of ``words`` (anywhere in it), as each language's chunks fold them."""
    for language in ("", *STEMMED):  # ``fold.forms``, word by word
        folded = [fold(word, language) for word in words]
        if all(f.strip() for f in folded):
            wanted = " AND ".join(quote(f) for f in folded)
            if db.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (wanted,)).fetchone():
                return False
    return True


def edits(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance of ``a`` and ``b`` (insert, delete, substitute, swap two adjacent
    letters), or ``limit + 1`` when it is over ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, row = row, current
    return min(row[len(b)], limit + 1)


# Round two (stop 54, after round one's "con alexa" was missed: its Spanish stem "alex" is 1 edit from "alej"): the
# edits a fold may be from a held token grow with its length, as search engines' automatic fuzziness does
# (Elasticsearch's ``AUTO:low,high``: 0 edits under ``low`` letters, 1 under ``high``, else 2).
AUTO = (5, 8)


def allowed(fold: str, distance: int | tuple[int, int]) -> int:
    """The edits ``fold`` may be from a held token: ``distance`` itself, or by its length (``AUTO``'s form)."""
    if isinstance(distance, int):
        return distance
    low, high = distance
    return 0 if len(fold) < low else 1 if len(fold) < high else 2


def near_held(db: sqlite3.Connection, word: str, distance: int | tuple[int, int]) -> bool:
    """Whether a token of the index is within ``distance`` edits (``allowed``) of a fold of ``word``
    (``fold.forms``: as each language's chunks hold it); a fold it holds exactly is 0 edits away."""
    folds = {f: allowed(f, distance) for f in forms(word) if f.strip()}
    if not folds:
        return True
    shortest = min(len(f) - d for f, d in folds.items())
    longest = max(len(f) + d for f, d in folds.items())
    rows = db.execute(f"SELECT term FROM {VOCAB} WHERE length(term) BETWEEN ? AND ?", (shortest, longest)).fetchall()
    return any(edits(f, term, d) <= d for (term,) in rows for f, d in folds.items())


LANGUAGES = ("en", "de", "es", "tr")  # the languages the vault and the chat are read in (``intent.turn_language``)


def _known(word: str, languages: str | tuple[str, ...]) -> bool:
    """simplemma's ``is_known`` of ``word`` as written, lowercase, or with a capital (a German noun)."""
    import simplemma  # on the first word asked: a language's low-memory dictionary loads on its first lookup

    spellings = dict.fromkeys((word, word.lower(), word[:1].upper() + word[1:].lower()))
    return any(simplemma.is_known(w, languages, low_memory=True) for w in spellings)


def _a_form(word: str, languages: str | tuple[str, ...]) -> bool:
    """Whether simplemma's lemmatizer reads ``word`` as a form of a word it knows (a Spanish verb with its clitic:
    "traerlas" -> "traer")."""
    import simplemma

    for language in (languages,) if isinstance(languages, str) else languages:
        lemma = simplemma.lemmatize(word, language, low_memory=True)
        if lemma.lower() != word.lower() and _known(lemma, language):
            return True
    return False


HEAD, TAIL = 3, 4  # the shortest parts a compound is read as ("Mac|book", "Notiz|text")


def _compound(word: str, known: Callable[[str], bool]) -> bool:
    """Whether ``word`` is two words each ``known`` ("Kachel|ansicht", "Aufzählung(s)|ansicht", "mac|book"), a
    joining "s" dropped from the head."""
    for cut in range(HEAD, len(word) - TAIL + 1):
        head, tail = word[:cut], word[cut:]
        heads = [head, head[:-1]] if head.endswith("s") and cut > HEAD else [head]
        if known(tail) and any(known(h) for h in heads):
            return True
    return False


def common(
    word: str,
    languages: str | tuple[str, ...],
    *,
    forms: bool = False,
    compound: Callable[[str], bool] | None = None,
) -> bool:
    """Whether ``word`` is a word of ``languages``' dictionaries (simplemma's ``is_known``, its word-form lists:
    "grupo", "mandar", "throw", "komplett" are; "whatsapp" in Spanish, "spotify", "fitbit" are not), as
    written, lowercase or with a capital (a German noun). ``forms``: also a form its lemmatizer reads as a known
    word's ("traerlas"); ``compound``: also two words each a dictionary word or held (``compound`` of the part:
    the vault holds it). The dictionaries are read from disk on a language's first lookup and kept (low-memory
    backend: 3-19 MB and 0.1-0.8 s CPU a language; docs/answers.md, stop 55, h55d)."""
    if _known(word, languages) or (forms and _a_form(word, languages)):
        return True
    held = compound
    return held is not None and _compound(word, lambda part: _known(part, languages) or held(part))


Spared = Callable[[sqlite3.Connection, str, str], bool]  # (the index, a word no chunk holds, its sentence's language)


def spared(*, languages: str = "sentence", forms: bool = False, compounds: str = "", turkish: bool = True) -> Spared:
    """Whether a word no chunk holds is no thing but a word of the language (``common``): of its sentence's language
    (``languages`` "sentence") or of any of ``LANGUAGES`` ("any"); ``forms``: or a form of one; ``compounds``: or
    two words each a dictionary word or held by the vault, in German sentences ("de") or in every one ("all");
    ``turkish`` False: every word of a Turkish sentence (Turkish has postpositions: "en" there is "most")."""

    def read(db: sqlite3.Connection, word: str, language: str) -> bool:
        if not turkish and language == "tr":
            return True
        asked = LANGUAGES if languages == "any" else language
        held = (lambda part: not in_no_chunk(db, [part])) if compounds in ("all", language) else None
        return common(word, asked, forms=forms, compound=held)

    return read
