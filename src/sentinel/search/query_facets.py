"""Facet filters inside a search query (``type:entity status:seedling tag:x role:note``).

The syntax and the SQL are the listing primitive's (``sentinel.index.facets``), so both read a filter the
same way. A search query is free text, though: ``10:30`` or ``https://x`` must not become filters. So a
``key:value`` token is a filter only when its key is ``tag`` or ``role`` or a frontmatter key some page
actually has; any other token stays part of the words searched for.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from sentinel.errors import BadInput
from sentinel.index.facets import TOKEN, FacetError, Facets, parse_facets
from sentinel.search.scope import scope_folders
from sentinel.search.view import per_generation
from sentinel.settings import Settings

ALWAYS = frozenset({"tag", "role", "scope"})  # scope: the boundary's facet, even where only folders have one


class FilterError(BadInput, ValueError):
    """A facet the index cannot apply, with what would work instead."""


@dataclass
class Filter:
    """The pages a faceted search may return."""

    facets: Facets
    paths: set[str]
    page_ids: np.ndarray  # pages.rowid of ``paths``, sorted
    chunk_ids: np.ndarray  # chunks.id of their chunks, sorted


def _frontmatter_keys(db: sqlite3.Connection) -> frozenset[str]:
    """Every frontmatter key some page has, case-folded (scanned once per change of the index)."""
    rows = db.execute("SELECT DISTINCT lower(k.key) FROM pages, json_each(pages.frontmatter) k")
    return frozenset(r[0] for r in rows)


def _known_key(db: sqlite3.Connection, key: str) -> bool:
    folded = key.casefold()
    return folded in ALWAYS or folded in per_generation(db, "frontmatter_keys", lambda: _frontmatter_keys(db))


def split_query(db: sqlite3.Connection, query: str) -> tuple[str, str]:
    """(the filter tokens, the words to search for) of a query."""
    filters: list[str] = []

    def take(match: object) -> str:
        token = match.group(0)  # type: ignore[attr-defined]
        if _known_key(db, match.group(1)):  # type: ignore[attr-defined]
            filters.append(token)
            return " "
        return token

    words = TOKEN.sub(take, query)
    return " ".join(filters), " ".join(words.split())


def page_filter(db: sqlite3.Connection, filters: str, settings: Settings | None = None) -> Filter | None:
    """The pages matching ``filters`` (None when there are none); ``scope:`` also matches the folders the
    settings give that scope. Raises ``FilterError`` for a bad one."""
    if not filters:
        return None
    try:
        facets = parse_facets(filters)
    except FacetError as err:
        raise FilterError(str(err)) from err
    facets.scope_folders = scope_folders(settings) if settings else {}
    where, params = facets.sql("pages")
    rows = db.execute(f"SELECT rowid, path FROM pages WHERE {where}", params).fetchall()
    paths = {r[1] for r in rows}
    chunk_ids: list[int] = []
    ordered = sorted(paths)
    for start in range(0, len(ordered), 500):
        batch = ordered[start : start + 500]
        marks = ",".join("?" * len(batch))
        chunk_ids += [r[0] for r in db.execute(f"SELECT id FROM chunks WHERE path IN ({marks})", batch)]
    return Filter(
        facets,
        paths,
        np.array(sorted(r[0] for r in rows), dtype=np.int64),
        np.array(sorted(chunk_ids), dtype=np.int64),
    )
