"""The lexical leg: FTS5 bm25 over body chunks (text and heading trail), safe for any user text."""

from __future__ import annotations

import sqlite3

from sentinel.index.facets import Facets
from sentinel.index.fold import forms
from sentinel.search import compounds, postings
from sentinel.search.centres import words_language
from sentinel.search.embedding import summary_seeds
from sentinel.search.fts_query import Terms, match_expression, prune_common, query_terms, quote
from sentinel.search.meaning import WORDS_SURE
from sentinel.search.view import per_generation
from sentinel.vault.entries import WINDOW_UNIT


def query_language(db: sqlite3.Connection, query: str) -> tuple[str, float]:
    """The language the lexical leg folds the query in, and how sure it is (0-1): the vault's one language,
    else its words' among the vault's languages (py3langid among the language centres' labels: the leg runs
    while the query is embedded, without its vector); unknown ("", 0) before any vector is stored."""
    languages = per_generation(db, "chunk_languages", lambda: _languages(db))
    if len(languages) == 1:
        return languages[0], 1.0
    return words_language(query, languages) if languages else ("", 0.0)


def _languages(db: sqlite3.Connection) -> tuple[str, ...]:
    found = summary_seeds(db)  # the chunk table's centres
    return tuple(lang for lang in found.languages if lang) if found is not None else ()


def language_rows(db: sqlite3.Connection, language: str, chunk_count: int) -> int:
    """The chunks a word of a query in ``language`` is counted common among: that language's chunks (each chunk
    stores its page's language, ``fold.page_language``), or all ``chunk_count`` when the language is unknown or
    holds none.

    A word's share of the whole vault understates how common it is in its own language: in a vault of four
    languages a German "wenn" or "kann" sits in a quarter of the German chunks but under the share of all
    chunks, so it stayed in German questions. Counted among its language's chunks it goes, and the wording
    leg then ranks by the question's rarer words. Measured (round nine, docs/retrieval.md): the wording leg
    *alone* ranks lower this way on every set, the fused ranking higher (it passed the rule on the choosing
    sets, by about one question's worth of MRR); so it is kept for the fusion, not as a better wording leg."""
    counts = per_generation(db, "language_rows", lambda: _language_counts(db))
    return counts.get(language, 0) or chunk_count if language else chunk_count


LANGUAGE_COUNTS = "SELECT language, count(*) FROM chunks GROUP BY language"  # from m012's index


def _language_counts(db: sqlite3.Connection) -> dict[str, int]:
    return {str(lang): int(n) for lang, n in db.execute(LANGUAGE_COUNTS)}


def lexical_terms(db: sqlite3.Connection, query: str, chunk_count: int) -> Terms:
    """The query's words that are worth matching (see ``fts.prune_common``, among the chunks of the query's
    language: ``language_rows``), folded as the index folds its language's chunks; a language named unsurely
    (a query of a word or two) also asks for each other language's form of its words that the index holds, so
    a wrong guess costs no match; one named surely also asks for the unstemmed forms of its words that a page of
    no sure language holds (``unsure_held``). A German word the index does not hold is read as two it holds
    (``compounds``)."""
    language, sure = query_language(db, query)
    terms = query_terms(query, language)
    if sure < WORDS_SURE:
        others = [t for form in forms(query) for t in query_terms(form) if t not in terms]
    else:
        others = unsure_held(db, [t for t in query_terms(query) if t not in terms])
    frequencies = postings.frequencies(db, list(dict.fromkeys(terms + others)))
    terms += [t for t in dict.fromkeys(others) if frequencies[t] > 0]  # the other forms the index holds
    if language in compounds.SPLIT_LANGUAGES:
        terms = compounds.split_unheld(db, terms, frequencies, language)
        frequencies = postings.frequencies(db, terms)
    return prune_common(terms, frequencies, language_rows(db, language, chunk_count))


# A chunk of a page whose language is not sure (``fold.page_language``: "") holds the word, unstemmed, among the
# newest ``UNSURE_SCAN`` chunks that hold it. Unbounded, a word thousands of English chunks hold (unstemmed too) was
# walked to its end: on 10k synthetic pages the lexical leg's p95 went from 2 to 109 ms CPU. The newest first: the
# page that needs this is one just written, whose vector is not embedded yet (an older one is found by meaning).
UNSURE_SCAN = 500
UNSURE_HOLDS = (
    "SELECT 1 FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?) AS held "
    "JOIN chunks ON chunks.id = held.rowid WHERE chunks.language = '' LIMIT 1"
)


def unsure_held(db: sqlite3.Connection, words: list[str]) -> list[str]:
    """Those of the unstemmed ``words`` that a page of no sure language holds.

    A page too short for its language to be sure (a one-line note just saved: "El jueves quiero llamar a
    Marta") keeps its words unstemmed, and "¿A quién tenía que llamar el jueves?", surely Spanish, asks "juev",
    which it lacks: until its vector is embedded nothing finds it. Only such pages' holdings count: an English
    page (unstemmed too) answering a Spanish question's unstemmed "plugins" would move the ranks every round chose
    (on the choosing sets it cost .8289 -> .8275 MRR@10)."""
    if not words or not per_generation(db, "unsure_chunks", lambda: _any_unsure(db)):
        return []
    return [w for w in words if db.execute(UNSURE_HOLDS, (quote(w), UNSURE_SCAN)).fetchone() is not None]


def _any_unsure(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT EXISTS (SELECT 1 FROM chunks WHERE language = '')").fetchone()[0] == 1


def lexical_chunks(db: sqlite3.Connection, terms: Terms, limit: int, facets: Facets | None = None) -> list[int]:
    """Chunk ids matching any of ``terms``, best bm25 first (``lexical_scored``)."""
    return list(lexical_scored(db, terms, limit, facets))


def lexical_scored(db: sqlite3.Connection, terms: Terms, limit: int, facets: Facets | None = None) -> dict[int, float]:
    """Chunk ids matching any of ``terms``, best bm25 first, with their bm25 scores (FTS5's ``rank`` negated:
    higher is better); with ``facets``, only chunks of pages they allow.

    Common words only: the chunks holding all of them come first, then the rest of the chunks holding any
    word of the query.
    Ranking every chunk that holds any of two common words is the slow end of the lexical leg (100k pages:
    240 ms for "in the Fiarcastr the", 39 ms for the chunks holding both), and those chunks rank first anyway.
    Without facets, a ranking is computed from postings held in memory (its rare words' read on the fly) when
    they are current (``sentinel.search.postings``: the same chunks in the same order), else by FTS5.
    """
    if limit <= 0 or not terms.words:
        return {}
    ranking = postings.ranking_for(db, terms.words, terms.frequencies) if facets is None else None
    if len(terms.common) < 2:
        return _ranked(db, terms.words, limit, facets, ranking)
    found = _ranked(db, terms.common, limit, facets, ranking, every=True)
    if len(found) < limit:
        more = ((c, s) for c, s in _ranked(db, terms.words, limit, facets, ranking).items() if c not in found)
        found.update(list(more)[: limit - len(found)])
    return found


# ``rank, rowid`` and not ``rank`` alone: FTS5 answers a bare ``ORDER BY rank`` by sorting every match, while a
# second key hands the order to SQLite's sorter, which keeps only the top ``LIMIT`` rows as it goes (the same
# rows, ties by rowid). On 100k synthetic pages the common-word queries' p95 halves (bench/lexical_sort.py).
ORDER = "ORDER BY rank, rowid LIMIT ?"

# ``+rowid`` and not ``rowid``: a bare ``rowid IN (...)`` is handed to FTS5 as one ``rowid = ?`` lookup per chunk
# the facets allow, each a fresh query of every term (role:wiki, common words: 9.6 s CPU p50 a query at 10k
# synthetic pages, 60 s at 100k); the unary plus keeps one pass over the terms' matches, the facets' chunks
# checked before bm25 (12 ms, 73 ms; the same chunks in the same order; bench/lexical_stage.py).
FACET_FILTER = "+rowid IN"


def ranked_query(facets: Facets | None) -> tuple[str, list[str]]:
    """The leg's SQL (parameters: the MATCH expression, these, the limit) and the facets' parameters."""
    if facets is None:
        return f"SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? {ORDER}", []
    where, params = facets.sql("pages")
    sql = (
        f"SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? AND {FACET_FILTER} "
        f"(SELECT c.id FROM chunks c JOIN pages ON pages.path = c.path WHERE {where}) {ORDER}"
    )
    return sql, params


def _ranked(
    db: sqlite3.Connection,
    words: list[str],
    limit: int,
    facets: Facets | None,
    ranking: postings.Ranking | None,
    *,
    every: bool = False,
) -> dict[int, float]:
    found = ranking.ranked_scores(words, limit, every=every) if ranking is not None else None
    if found is not None:
        postings.SERVED["memory"] += 1
        return found
    postings.SERVED["fts5"] += 1
    sql, params = ranked_query(facets)
    rows = db.execute(sql, [match_expression(words, every=every), *params, limit]).fetchall()
    return {int(cid): -float(rank) for cid, rank in rows}


def windows_per_page(db: sqlite3.Connection, paths: list[str]) -> dict[str, int]:
    """How many prose windows each of ``paths`` is cut into (pages with none are left out): the wording leg
    ranks a page by its best window, so a page of many windows has as many chances to hold a query's word."""
    found: dict[str, int] = {}
    for start in range(0, len(paths), 500):
        batch = paths[start : start + 500]
        marks = ",".join("?" * len(batch))
        found.update(
            (str(path), int(n))
            for path, n in db.execute(
                f"SELECT path, count(*) FROM chunks WHERE kind = ? AND path IN ({marks}) GROUP BY path",
                [WINDOW_UNIT, *batch],
            )
        )
    return found
