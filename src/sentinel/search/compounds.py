"""German compounds in a query: a word the index does not hold, read as two words it holds.

"Tabellenimport" asks for a page that says "Tabellen" and "Import" apart; bm25 finds nothing for the compound.
A query word in no chunk is replaced by its longest first part that, with the rest, the index holds as two
words (a linking ``s`` may end the first part: "Sicherungs|kopie" -> "sicherung", "kopie"). Only German
queries are split (``search.lexical``): the sets that chose it hold German questions (docs/retrieval.md, round
six). Each part is folded (stemmed) as the index folds the query's language; a part shorter than ``MIN_PART``
is not a word of its own.

The other way round (issue 32, round twelve): a question's word is also matched where the index holds it only as
the last part of a longer word ("Wiederherstellung" in "Datenwiederherstellung", "Gruppe" in "Tabgruppe"), in
every language, from the index's own vocabulary (``with_heads``): the pages that compound the asked word were
invisible to the wording leg. Measured on the choosing sets (docs/retrieval.md, round twelve).
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from dataclasses import dataclass

from sentinel.index.fold import fold
from sentinel.search import postings
from sentinel.search.fts_query import Terms
from sentinel.search.view import per_generation

MIN_PART = 3
SPLIT_LANGUAGES = ("de",)
# A held query word of at least MIN_HEAD letters also matches up to HEADS_PER_WORD held words that end in it and
# are at least MIN_PART letters longer, the most common first (chosen on the choosing sets, round twelve).
MIN_HEAD = 5
HEADS_PER_WORD = 20


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


@dataclass(frozen=True)
class Endings:
    """The index's words sorted by their reversed spelling (a word's compounds are then one run), with each
    word's chunk count: read once per index change."""

    reversed_words: list[str]
    words: list[str]
    rows: list[int]

    def ending_in(self, word: str) -> list[tuple[str, int]]:
        """The held words that end in ``word`` (``word`` itself too), with their chunk counts."""
        tail = word[::-1]
        found = []
        at = bisect_left(self.reversed_words, tail)
        while at < len(self.reversed_words) and self.reversed_words[at].startswith(tail):
            found.append((self.words[at], self.rows[at]))
            at += 1
        return found


def _endings(db: sqlite3.Connection) -> Endings:
    vocabulary = db.execute(f"SELECT term, doc FROM {postings.VOCAB}")
    held = sorted((str(term)[::-1], str(term), int(rows)) for term, rows in vocabulary)
    return Endings([r for r, _, _ in held], [w for _, w, _ in held], [n for _, _, n in held])


def with_heads(db: sqlite3.Connection, terms: Terms) -> Terms:
    """``terms`` followed by, for each held word of at least ``MIN_HEAD`` letters, the ``HEADS_PER_WORD`` most
    common held words that end in it and are at least ``MIN_PART`` letters longer: the compounds whose last part
    it is. German or English alike: the vocabulary decides, not a language list. Added after the common words
    were pruned (``fts_query.prune_common``), as measured: a compound is matched however common it is."""
    frequencies = dict(terms.frequencies)
    asked = [word for word in terms.words if len(word) >= MIN_HEAD and frequencies.get(word)]
    if not asked:
        return terms
    endings = per_generation(db, "word_endings", lambda: _endings(db))
    compounds: list[str] = []
    for word in asked:
        longer = [(w, n) for w, n in endings.ending_in(word) if len(w) >= len(word) + MIN_PART]
        for compound, rows in sorted(longer, key=lambda held: (-held[1], held[0]))[:HEADS_PER_WORD]:
            if compound not in frequencies:
                compounds.append(compound)
                frequencies[compound] = rows
    return Terms([*terms.words, *compounds], terms.common, frequencies)
