"""A word no chunk holds, nor a word a typo away: what ``unnamed`` reads as a thing written lowercase.

Seen in the browser (stop 53, row 6 of bench/browser_turns_sixth.tsv): "¿puedo dictarle notas a obsidian con
alexa?" quoted the Sync FAQ's Apple Isolation mode. "alexa" is lowercase, after a bare "con", and its clause ends,
so no naming read it as a thing. A word the question writes that no chunk holds in any language's fold
(``fold.forms``) is a thing the vault never names, unless it is a typo of a word the vault holds ("obsidain",
"sincronisacion"): any word of the index's vocabulary (FTS5's ``chunks_vocab``, its folded and stemmed tokens)
within ``distance`` edits of one of its folds, an adjacent swap counting as one edit (optimal string alignment).
"""

from __future__ import annotations

import sqlite3

from sentinel.index.fold import forms
from sentinel.search.postings import VOCAB


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
