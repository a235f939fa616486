"""User text to a safe FTS5 query: punctuation, quotes and operators in a question never raise.

Every word becomes a quoted FTS5 string (so ``AND``, ``NEAR``, ``*``, ``"``, ``:``, ``-`` lose their syntax
meaning), joined with OR and ranked by bm25, so a natural-language question matches pages that share its
rarer words. Words that most chunks contain ("the", "what", "obsidian" in a vault about Obsidian) are dropped
when rarer ones remain: they add little to the ranking and make OR queries slow on large indexes.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

from sentinel.index.fold import fold

WORD = re.compile(r"[^\W_]+")  # letters and digits: what FTS5's unicode61 tokenizer keeps
MAX_TERMS = 24  # a pasted paragraph as a query is cut to its first words, with the rest reported
# A term in more than this share of the chunks of the query's language (``lexical.language_rows``) counts as
# common: 0.12 of the language's chunks, chosen on the choosing sets (round nine; before, 0.08 of all chunks).
COMMON_SHARE = 0.12
MIN_KEPT = 2  # a query of common words only keeps this many of them
MAX_RARE_ROWS = 20_000  # past this many chunks a term is common whatever the share (bm25 cost grows with it)
MIN_COMMON_ROWS = 5  # a term in this few rows is never common, however small the index


def query_terms(text: str, language: str = "") -> list[str]:
    """The distinct words of ``text`` folded as the index folded them (in ``language``: stemmed where the fold
    stems it), in order, at most ``MAX_TERMS``."""
    return list(dict.fromkeys(WORD.findall(fold(text, language))))[:MAX_TERMS]


def quote(term: str) -> str:
    """One FTS5 string: whatever it contains, FTS5 reads it as words, never as syntax."""
    return '"' + term.replace('"', '""') + '"'


def document_frequencies(db: sqlite3.Connection, vocab_table: str, terms: list[str]) -> dict[str, int]:
    """How many rows of the FTS table hold each term (FTS5 tokenises terms the way it indexed them)."""
    if not terms:
        return {}
    marks = ",".join("?" * len(terms))
    rows = db.execute(f"SELECT term, doc FROM {vocab_table} WHERE term IN ({marks})", terms).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


@dataclass(frozen=True)
class Terms:
    """The words a lexical search matches; ``common``: the indexed ones among them when no rarer word was
    there (empty otherwise)."""

    words: list[str]
    common: list[str]
    frequencies: dict[str, int] = field(default_factory=dict)  # each word's rows, as pruning read them


def prune_common(terms: list[str], frequencies: dict[str, int], rows: int) -> Terms:
    """Drop the terms that many rows contain when rarer ones are present; a query of common words only
    keeps its ``MIN_KEPT`` rarest, preferring those in at most half of the rows, and says so. ``rows``: the
    chunks a term of the query could be in (``lexical.language_rows``: those of the query's language).

    A common term next to a rare one only adds matches that rank below the rare term's and costs a bm25
    pass over each of them (90 ms for one word in half of 95k chunks). A term in more than half of the rows
    cannot change a rank at all: FTS5's bm25 floors its idf at 1e-6. Terms the index does not hold as a
    token are kept but do not count: they match nothing, or, where FTS5 tokenises them differently from
    ``fold``, still match as a quoted phrase.
    """
    limit = min(max(MIN_COMMON_ROWS, int(rows * COMMON_SHARE)), MAX_RARE_ROWS)
    present = [t for t in terms if frequencies.get(t, 0) > 0]
    keep = {t for t in present if frequencies[t] <= limit}
    common: list[str] = []
    if not keep:
        rankable = [t for t in present if frequencies[t] <= rows / 2] or present
        keep = set(sorted(rankable, key=lambda t: frequencies[t])[:MIN_KEPT])
        common = [t for t in terms if t in keep]
    words = [t for t in terms if t in keep or frequencies.get(t, 0) == 0]
    return Terms(words, common, {t: frequencies.get(t, 0) for t in words})


def match_expression(terms: list[str], *, every: bool = False) -> str:
    """An FTS5 MATCH expression of the quoted terms: any of them (OR), or ``every`` one (AND); empty when
    there is nothing to match."""
    return (" AND " if every else " OR ").join(quote(t) for t in terms)
