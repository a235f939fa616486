"""Rank fusion of the retrieval legs: only positions are combined, never similarity or bm25 values.

Reciprocal Rank Fusion (Cormack et al. 2009): an item's fused weight is the sum over legs of
``weight / (k + rank)``. Plain RRF (k=60, equal weights) is the baseline; the weighted form lets measured
evidence (bench/retrieval.py) favour the legs that are right more often and the top ranks. The weights stay
inside the search code: results carry only the order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def rrf_weights(
    rankings: Sequence[Sequence[K]], *, k: float = 60.0, weights: Sequence[float] | None = None
) -> dict[K, float]:
    """Fused weight of every item in any of the ranked lists (best first), in a deterministic order:
    by weight, ties by the best rank any leg gave the item, then by the first leg that has it."""
    weights = weights if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    fused: dict[K, float] = {}
    first_seen: dict[K, tuple[int, int]] = {}
    for leg, (ranking, weight) in enumerate(zip(rankings, weights, strict=True)):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
            seen = first_seen.get(item)
            if seen is None or (rank, leg) < seen:
                first_seen[item] = (rank, leg)
    return {item: fused[item] for item in sorted(fused, key=lambda i: (-fused[i], first_seen[i]))}


def rrf(rankings: Sequence[Sequence[K]], *, k: float = 60.0, weights: Sequence[float] | None = None) -> list[K]:
    """The fused ranking itself."""
    return list(rrf_weights(rankings, k=k, weights=weights))
