"""The lexical leg: FTS5 bm25 over body chunks (text and heading trail), safe for any user text."""

from __future__ import annotations

import sqlite3

from sentinel.index.facets import Facets
from sentinel.search.fts import document_frequencies, match_expression, prune_common, query_terms

VOCAB_TABLE = "chunks_vocab"


def lexical_terms(db: sqlite3.Connection, query: str, chunk_count: int) -> list[str]:
    """The query's words that are worth matching (see ``fts.prune_common``)."""
    terms = query_terms(query)
    return prune_common(terms, document_frequencies(db, VOCAB_TABLE, terms), chunk_count)


def lexical_chunks(db: sqlite3.Connection, terms: list[str], limit: int, facets: Facets | None = None) -> list[int]:
    """Chunk ids matching any of ``terms``, best bm25 first; with ``facets``, only chunks of pages they allow."""
    expression = match_expression(terms)
    if not expression or limit <= 0:
        return []
    params: list[str] = []
    if facets is None:
        sql = "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?"
    else:
        where, params = facets.sql("pages")
        sql = (
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN "
            f"(SELECT c.id FROM chunks c JOIN pages ON pages.path = c.path WHERE {where}) ORDER BY rank LIMIT ?"
        )
    rows = db.execute(sql, [expression, *params, limit]).fetchall()
    return [int(r[0]) for r in rows]
