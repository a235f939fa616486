"""Gate 2: a derived page (wiki/) cannot add a concept the graph does not already have.

Protects the vault from feeding on itself: the system's own output may point at concepts that the user's
pages, sources or existing pages already carry, but it is never the source of a new one (the model-collapse
loop, closed structurally). "The graph has it" means the concept's normalised name (see ``verbatim.normalise``)
is a page name, an alias, a link target placed by a non-derived page, or a concept extracted from a
non-derived page.

This module owns the whole rule: what the graph already has (``known_concepts``, and the concepts each
non-derived page adds as the pass analyses it), which concepts a page may keep, and which names may grow the
graph (``growth_queue``: a link a wiki page places to a name nothing else reaches for stays a link, rendered
faded, but never becomes a growth-queue name, so it never gets a concept page and never counts towards one).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from sentinel.gates import Verdict, sorted_items
from sentinel.gates.verbatim import normalise
from sentinel.index.queries import Unresolved, unresolved
from sentinel.paths import Role

GROWING_ROLES = frozenset(Role) - {Role.WIKI}  # the roles whose links and concepts may add a name


def known_concepts(db: sqlite3.Connection) -> set[str]:
    """Normalised names the graph already has: page names, aliases, link targets placed by non-derived pages,
    and concepts kept from non-derived pages."""
    wiki = (Role.WIKI.value,)
    queries = [
        ("SELECT title FROM pages", ()),
        ("SELECT alias FROM aliases", ()),
        (
            """SELECT DISTINCT l.target FROM links l JOIN pages p ON p.path = l.source
               WHERE l.places = 1 AND l.kind != 'attachment' AND p.role != ?""",
            wiki,
        ),
        ("SELECT DISTINCT m.concept FROM concept_mentions m JOIN pages p ON p.path = m.path WHERE p.role != ?", wiki),
    ]
    return {normalise(row[0]) for sql, args in queries for row in db.execute(sql, args)}


def no_new_concepts_from_derived(concepts: Iterable[str], role: Role, known: set[str]) -> Verdict[str]:
    """For a wiki page keep only concepts whose normalised name is in ``known``; other roles keep all, and
    their concepts join ``known`` (so a wiki page analysed later in the pass is gated against them)."""
    kept: list[str] = []
    dropped: list[str] = []
    for concept in concepts:
        if role is not Role.WIKI:
            known.add(normalise(concept))
            kept.append(concept)
        elif normalise(concept) in known:
            kept.append(concept)
        else:
            dropped.append(concept)
    return sorted_items(kept, dropped, "new concept from a derived page: " + ", ".join(dropped))


def growth_queue(db: sqlite3.Connection, limit: int) -> Verdict[Unresolved]:
    """Kept: the growth queue as far as non-derived pages reach for it (most-wanted first, counted over those
    pages only); dropped: names among the ``limit`` most-wanted that only wiki pages link to."""
    growing = unresolved(db, limit=limit, placed_by=GROWING_ROLES)
    keys = {entry.key for entry in growing}
    only_derived = [entry for entry in unresolved(db, limit=limit) if entry.key not in keys]
    names = ", ".join(entry.name for entry in only_derived)
    return sorted_items(growing, only_derived, f"only derived pages link to: {names}")
