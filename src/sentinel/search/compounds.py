"""German compounds in a query: a word the index does not hold, read as two words it holds.

"Tabellenimport" asks for a page that says "Tabellen" and "Import" apart; bm25 finds nothing for the compound.
A query word in no chunk is replaced by its longest first part that, with the rest, the index holds as two
words (a linking ``s`` may end the first part: "Sicherungs|kopie" -> "sicherung", "kopie"). Only German
queries are split (``search.lexical``): the sets that chose it hold German questions (docs/retrieval.md, round
six). Each part is folded (stemmed) as the index folds the query's language; a part shorter than ``MIN_PART``
is not a word of its own.
"""

from __future__ import annotations

import sqlite3

from sentinel.index.fold import fold
from sentinel.search import postings

MIN_PART = 3
SPLIT_LANGUAGES = ("de",)


def cuts(word: str) -> list[tuple[str, str]]:
    """The ways to read ``word`` as two parts, longest first part first; then the readings whose first part
    ends in a linking ``s``, without it."""
    plain = [(word[:at], word[at:]) for at in range(len(word) - MIN_PART, MIN_PART - 1, -1)]
    linked = [(first[:-1], rest) for first, rest in plain if first.endswith("s") and len(first) > MIN_PART]
    return plain + linked


def split_unheld(db: sqlite3.Connection, words: list[str], frequencies: dict[str, int], language: str) -> list[str]:
    """``words`` with each the index does not hold replaced by the first of its ``cuts`` whose two parts, folded
    in ``language`` as the index folds them, it holds (kept as it is when none is)."""
    out: list[str] = []
    for word in words:
        readings = [(fold(a, language), fold(b, language)) for a, b in cuts(word)] if not frequencies.get(word) else []
        held = postings.frequencies(db, sorted({part for cut in readings for part in cut})) if readings else {}
        found = next((cut for cut in readings if held[cut[0]] > 0 and held[cut[1]] > 0), None)
        out.extend(found if found else (word,))
    return list(dict.fromkeys(out))
