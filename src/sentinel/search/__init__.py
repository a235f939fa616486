"""Hybrid search over the index: vectors, lexical matching, rank fusion and the search ladder.

``search`` answers a query on a rung; ``embed_pending`` is what the maintenance pass (and ``sentinel
embed``) calls to bring vectors up to date.
"""

from sentinel.search.embedding import EmbedCounts, VectorsFromAnotherModel, embed_pending
from sentinel.search.ladder import SearchInputError, search
from sentinel.search.results import Hit, Rung, SearchResult

__all__ = [
    "EmbedCounts",
    "Hit",
    "Rung",
    "SearchInputError",
    "SearchResult",
    "VectorsFromAnotherModel",
    "embed_pending",
    "search",
]
