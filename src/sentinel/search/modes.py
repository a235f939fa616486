"""The three modes a person's search box has (seed 003): Quick, Facet, Semantic, answered by the one search.

- ``quick``: file names and aliases containing the words (an exact name first, then names that start with
  them, then the rest; among equals the shortest path), a summary line per page;
- ``facet``: ``key:value`` filters (the listing's syntax, read by ``query_facets``); with words too, the
  ladder's faceted search ranks them, filters alone list the matching pages by path;
- ``semantic``: the ladder itself (``ladder.search``), exactly what the ``search`` tool runs.

No mode ranks by a second policy: quick and filter-only facet order by name and path, which is a listing, and
every ranked answer is the ladder's. Hits are built by ``hits.build_hits`` so labels and summary lines are the
same as the tool's.
"""

from __future__ import annotations

import sqlite3
from typing import Literal

from sentinel.embed.base import Embedder
from sentinel.search.hits import build_hits, quality_flags
from sentinel.search.ladder import SearchInputError, search
from sentinel.search.query_facets import FilterError, page_filter, split_query
from sentinel.search.results import Rung, SearchResult
from sentinel.search.scope import kept_out
from sentinel.settings import Settings
from sentinel.vault.links import link_key

Mode = Literal["quick", "facet", "semantic"]
MODES: tuple[Mode, ...] = ("quick", "facet", "semantic")


def _window(
    db: sqlite3.Connection, query: str, ranked: list[str], exact: set[str], rung: Rung, cursor: int, limit: int
) -> SearchResult:
    window = ranked[cursor : cursor + limit]
    hits = build_hits(db, window, rung, exact, {}, quality_flags(db, window), {})
    more = cursor + limit if len(ranked) > cursor + limit else None
    return SearchResult(query=query, rung=rung, hits=hits, cursor=cursor, next_cursor=more)


def quick(db: sqlite3.Connection, settings: Settings, query: str, rung: Rung, cursor: int, limit: int) -> SearchResult:
    """Pages whose file name or an alias contains ``query`` (case-insensitive)."""
    key = link_key(" ".join(query.split()).removeprefix("[[").removesuffix("]]"))
    if not key:
        raise SearchInputError("the query is empty: type part of a page's name or alias")
    rows = db.execute(
        """SELECT path, MIN(kind) AS kind FROM (
             SELECT path, CASE WHEN name_key = ?1 THEN 0 WHEN substr(name_key, 1, length(?1)) = ?1 THEN 1 ELSE 2 END
               AS kind FROM pages WHERE instr(name_key, ?1) > 0
             UNION ALL
             SELECT path, CASE WHEN alias_key = ?1 THEN 0 WHEN substr(alias_key, 1, length(?1)) = ?1 THEN 1 ELSE 2 END
               FROM aliases WHERE instr(alias_key, ?1) > 0
           ) GROUP BY path ORDER BY kind, length(path), path""",
        (key,),
    ).fetchall()
    out = kept_out(db, settings, None)
    ranked = [row[0] for row in rows if row[0] not in out]
    exact = {row[0] for row in rows if row[1] == 0}
    return _window(db, query, ranked, exact, rung, cursor, limit)


def facet(
    db: sqlite3.Connection,
    settings: Settings,
    embedder: Embedder | None,
    query: str,
    rung: Rung,
    cursor: int,
    limit: int,
) -> SearchResult:
    """Filters alone: the pages they allow, by path. Filters with words: the ladder's faceted search."""
    filters, words = split_query(db, " ".join(query.split()))
    if not filters:
        raise SearchInputError(
            f"'{query}' has no facet this vault knows: a facet is key:value with a frontmatter key some page has "
            "(type:concept, status:seedling), tag:x or role:note"
        )
    if words:
        return search(db, settings, embedder, query, rung=rung, cursor=cursor, limit=limit)
    try:
        only = page_filter(db, filters, settings)
    except FilterError as err:
        raise SearchInputError(str(err)) from err
    out = kept_out(db, settings, only.facets) if only is not None else frozenset()
    ranked = sorted(only.paths - out) if only is not None else []
    return _window(db, filters, ranked, set(), rung, cursor, limit)


def answer(
    db: sqlite3.Connection,
    settings: Settings,
    embedder: Embedder | None,
    mode: Mode,
    query: str,
    rung: Rung = "summary",
    cursor: int = 0,
    limit: int | None = None,
) -> SearchResult:
    """One mode's answer. Raises ``SearchInputError`` for an empty query, a facet-less facet query, a bad
    filter, rung or cursor (the ladder's checks, which every mode shares)."""
    limit = limit or settings.search_hits
    if rung not in ("summary", "body"):
        raise SearchInputError(f"rung must be 'summary' or 'body', got {rung!r}")
    if cursor < 0:
        raise SearchInputError(f"cursor must be a whole number >= 0 (from next_cursor), got {cursor!r}")
    if mode == "quick":
        return quick(db, settings, query, rung, cursor, limit)
    if mode == "facet":
        return facet(db, settings, embedder, query, rung, cursor, limit)
    return search(db, settings, embedder, query, rung=rung, cursor=cursor, limit=limit)
