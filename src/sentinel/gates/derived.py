"""Gate 2: a derived page (wiki/) cannot add a concept the graph does not already have.

Protects the vault from feeding on itself: the system's own output may point at concepts that the user's
pages, sources or existing pages already carry, but it is never the source of a new one (the model-collapse
loop, closed structurally). "The graph has it" means the concept's normalised name (see ``verbatim.normalise``)
is a page name, an alias, a link target placed by a non-derived page, or a concept extracted from a
non-derived page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sentinel.gates.verbatim import normalise
from sentinel.paths import Role


@dataclass
class DerivedResult:
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def no_new_concepts_from_derived(concepts: Iterable[str], role: Role, known: set[str]) -> DerivedResult:
    """For a wiki page keep only concepts whose normalised name is in ``known``; other roles keep all."""
    result = DerivedResult()
    for concept in concepts:
        if role is not Role.WIKI or normalise(concept) in known:
            result.kept.append(concept)
        else:
            result.dropped.append(concept)
    return result
