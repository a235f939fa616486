"""The scope boundary (seed 003): pages of a kept-out scope stay out of queries that do not ask for it.

A page is in a scope by its frontmatter (``scope: personal``, or a list holding it) or by its folder
(``SearchSettings.scope_folders``). A query asks for a scope with the facet ``scope:personal``; the person
widens every query by taking the scope out of ``SearchSettings.kept_out_scopes``. Every surface that answers a
query (the search ladder behind the tools, MCP, chat and the search page; the page's Quick and Facet modes; the
listing) asks this module, so the boundary is decided once.

This is a retrieval boundary, not a privacy boundary: it keeps a diary entry from ranking first for a work
question. Reading a page by its path still opens it, and anyone who can read the vault's files can read them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sentinel.index.facets import Facets
from sentinel.search.view import per_generation
from sentinel.settings import Settings

SCOPE_KEY = "scope"
# Scopes the caller's key never reaches (keys.KeyRecord.kept_out), set per request by the API and MCP doors.
_locked: ContextVar[frozenset[str]] = ContextVar("sentinel_locked_scopes", default=frozenset())


@contextmanager
def limited_to(locked: tuple[str, ...] | frozenset[str]) -> Iterator[None]:
    """Within this block, queries cannot reach ``locked`` scopes even by asking, nor read their pages by path."""
    token = _locked.set(frozenset(s.casefold() for s in locked))
    try:
        yield
    finally:
        _locked.reset(token)


def asked_scopes(facets: Facets | None) -> set[str]:
    """The scopes a query asks for by name (``scope:personal``), case-folded."""
    return {value.casefold() for key, value in (facets.fields if facets else []) if key.casefold() == SCOPE_KEY}


def kept_out_scopes(settings: Settings, facets: Facets | None) -> tuple[str, ...]:
    """The scopes this query leaves out: the setting's, less those it asks for, plus those its key never
    reaches (asking does not bring those back)."""
    asked = asked_scopes(facets)
    return tuple(sorted(({s.casefold() for s in settings.search.kept_out_scopes} - asked) | _locked.get()))


def scope_folders(settings: Settings) -> dict[str, list[str]]:
    """Scope -> the folders whose pages are in it (``SearchSettings.scope_folders`` turned around)."""
    found: dict[str, list[str]] = {}
    for folder, scope in sorted(settings.search.scope_folders.items()):
        found.setdefault(scope.casefold(), []).append(folder.strip("/"))
    return found


def kept_out(db: sqlite3.Connection, settings: Settings, facets: Facets | None) -> frozenset[str]:
    """Paths of the pages this query must not return (remembered per change of the index)."""
    return _in_scopes(db, settings, kept_out_scopes(settings, facets))


def hidden_from_key(db: sqlite3.Connection, settings: Settings) -> frozenset[str]:
    """Paths of the pages in the scopes the caller's key never reaches (none for an unlimited key)."""
    return _in_scopes(db, settings, tuple(sorted(_locked.get())))


def refused_by_key(db: sqlite3.Connection, settings: Settings, path: str) -> str:
    """Why the caller's key may not open ``path`` ("" when it may): a page of a scope the key never reaches."""
    if path in hidden_from_key(db, settings):
        locked = ", ".join(sorted(_locked.get()))
        return f"{path} is in a scope this key may not reach ({locked}); use a key without that limit"
    return ""


def _in_scopes(db: sqlite3.Connection, settings: Settings, scopes: tuple[str, ...]) -> frozenset[str]:
    if not scopes:
        return frozenset()
    folders = scope_folders(settings)
    clauses: list[str] = []
    params: list[str] = []
    for scope in scopes:
        where, more = Facets(fields=[(SCOPE_KEY, scope)], scope_folders=folders).sql("pages")
        clauses.append(where)
        params += more
    sql = f"SELECT path FROM pages WHERE {' OR '.join(clauses)}"
    key = f"kept_out:{sql}:{params}"
    return per_generation(db, key, lambda: frozenset(r[0] for r in db.execute(sql, params)))


def boundary_note(left_out: int, settings: Settings, facets: Facets | None) -> str:
    """What a reader is told when the boundary removed hits: never silently."""
    scopes = tuple(s for s in kept_out_scopes(settings, facets) if s not in _locked.get())
    if not scopes:
        return f"{left_out} page(s) left out: a scope this key may not reach"
    ask = " or ".join(f"{SCOPE_KEY}:{s}" for s in scopes)
    return f"{left_out} page(s) of scope {', '.join(scopes)} left out (a retrieval boundary): add {ask} to search them"
