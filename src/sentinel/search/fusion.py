"""Fusion of the retrieval legs: the two unit legs by their normalised scores, every leg by rank.

Reciprocal Rank Fusion (Cormack et al. 2009): an item's fused weight is the sum over legs of
``weight / (k + rank)``. Plain RRF (k=60, equal weights) is the baseline; the weighted form lets measured
evidence (bench/retrieval.py) favour the legs that are right more often and the top ranks. Ranks alone throw
away how far apart two candidates are, so the wording and unit legs, which score every candidate, first meet
as one convex combination of their scores, each normalised per query (``convex_pages``: Bruch, Gai and Ingber,
"An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023), and that ranking joins the rest by rank.
The weights and scores stay inside the search code: results carry only the order.

Every fusion policy of the ladder lives here: how the legs are weighed (``fuse_legs``), how the PageRank walk
joins (``with_walk``), how quality flags rank a page down (``penalised``), and which chunk a page shows
(``chunk_order``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from typing import TypeVar

from sentinel.search import results as r
from sentinel.settings import SearchSettings

K = TypeVar("K", bound=Hashable)

PLAIN_K = 60.0  # Cormack et al.'s constant: plain RRF, and the order of a page's candidate chunks
GRAPH_WEIGHT = 1.0  # weight of the PageRank walk's ranking against the fused one


def rrf_weights(
    rankings: Sequence[Sequence[K]],
    *,
    k: float = PLAIN_K,
    weights: Sequence[float] | None = None,
    item_weights: Sequence[Mapping[K, float]] | None = None,
) -> dict[K, float]:
    """Fused weight of every item in any of the ranked lists (best first), in a deterministic order:
    by weight, ties by the best rank any leg gave the item, then by the first leg that has it.
    ``item_weights`` (one mapping per ranking) replaces a leg's weight for the items it names."""
    weights = weights if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    fused: dict[K, float] = {}
    first_seen: dict[K, tuple[int, int]] = {}
    own = item_weights if item_weights is not None else [{}] * len(rankings)
    for leg, (ranking, weight, special) in enumerate(zip(rankings, weights, own, strict=True)):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + special.get(item, weight) / (k + rank)
            seen = first_seen.get(item)
            if seen is None or (rank, leg) < seen:
                first_seen[item] = (rank, leg)
    return {item: fused[item] for item in sorted(fused, key=lambda i: (-fused[i], first_seen[i]))}


def rrf(rankings: Sequence[Sequence[K]], *, k: float = PLAIN_K, weights: Sequence[float] | None = None) -> list[K]:
    """The fused ranking itself."""
    return list(rrf_weights(rankings, k=k, weights=weights))


def fuse_legs(
    search: SearchSettings,
    legs: Mapping[str, Sequence[str]],
    excerpts: Collection[str] = (),
    windows: Mapping[str, int] | None = None,
    passages: Sequence[str] = (),
    scores: Mapping[str, Mapping[str, float]] | None = None,
    feedback: Sequence[str] = (),
) -> dict[str, float]:
    """Fused weights of the legs' ranked pages (best first): plain RRF, or RRF weighted per leg; with
    ``scores`` (each unit leg's pages' best unit score, ``ladder.Ranking.scores``) and ``fusion`` = "scores",
    the wording and unit legs are one ranking (``convex_pages``) weighing ``weight_lexical + weight_chunks``.

    ``excerpts``: pages whose summary is only an excerpt of a few entries (no description, no analysis yet, a
    first unit that is an entry: a chat log's first turns; ``summaries.excerpts_of_entries``). Their summary
    vector stands for those lines, not for the page, so their vote in the summary leg weighs
    ``weight_excerpts``. ``windows``: each page's count of prose windows (``lexical.windows_per_page``); its
    vote in the lexical leg is divided by that count to the power ``window_prior`` (``wording_votes``). The leg
    weights (lexical 1.5, chunks 2.0, summaries and excerpts 0.75) were chosen for 120-word overlapping windows
    on public, vault-choose and convo-choose and kept on vault-fresh; ``window_prior`` on vault-choose
    (docs/retrieval.md, issue 32 rounds three to five); with the passage vote the meaning legs weigh less
    (chunks 1.75, summaries 0.5: round eight), since the passages already carry their units' evidence; on eight
    choosing sets the wording and unit legs weigh more again beside the passages (lexical 1.875, chunks 2.25:
    round ten).
    ``passages``: pages by their best unit under the unit-by-unit fusion of the two unit legs
    (``passage_pages``); they vote with ``weight_passages`` (and the same window prior): each leg ranks a page
    by its own best unit, which may be two different units, while the answer is one passage, so a unit both
    legs rank high is evidence neither leg's page order carries (round seven)."""
    if search.fusion == "rrf":
        return rrf_weights(list(legs.values()))
    weights = {
        r.LEG_LEXICAL: search.weight_lexical,
        r.LEG_CHUNKS: search.weight_chunks,
        r.LEG_SUMMARIES: search.weight_summaries,
    }
    own = {
        r.LEG_SUMMARIES: dict.fromkeys(excerpts, search.weight_excerpts),
        r.LEG_LEXICAL: wording_votes(search, windows or {}),
    }
    rankings = list(legs.values())
    leg_weights = [weights[name] for name in legs]
    item_weights = [own.get(name, {}) for name in legs]
    scored = (r.LEG_LEXICAL, r.LEG_CHUNKS)
    if search.fusion == "scores" and scores is not None and all(name in legs for name in scored):
        rest = [name for name in legs if name not in scored]
        rankings = [convex_pages(search, scores, windows or {}), *(legs[name] for name in rest)]
        leg_weights = [search.weight_lexical + search.weight_chunks, *(weights[name] for name in rest)]
        item_weights = [{}, *(own.get(name, {}) for name in rest)]
    if passages and search.weight_passages > 0:
        rankings.append(passages)
        leg_weights.append(search.weight_passages)
        item_weights.append(wording_votes(search, windows or {}, search.weight_passages))
    if feedback:  # the unit leg's second pass as its own leg (``feedback_leg`` "own"), weighed as the unit leg
        rankings.append(feedback)
        leg_weights.append(search.weight_chunks)
        item_weights.append({})
    return rrf_weights(rankings, k=search.rrf_k, weights=leg_weights, item_weights=item_weights)


def convex_pages(
    search: SearchSettings, scores: Mapping[str, Mapping[str, float]], windows: Mapping[str, int]
) -> list[str]:
    """The wording and unit legs' pages by ``score_alpha * unit + (1 - score_alpha) * wording``, best first.

    Each leg's score is its page's best unit's (bm25; exact centred cosine), divided by the leg's best in this
    query, with a lower bound of 0 (an unrelated unit's cosine; bm25 has none lower): Bruch et al.'s
    theoretical-minimum normalisation. A page one leg did not find scores 0 there. The wording score keeps the
    window prior (``wording_votes``: a page of many windows has as many chances to hold a word). Round fifteen
    (docs/retrieval.md): on the 13 choosing sets pooled MRR@10 .8169 -> .8289, hit@5 .9245 -> .9284."""
    lexical = _by_best(scores.get(r.LEG_LEXICAL, {}))
    semantic = _by_best(scores.get(r.LEG_CHUNKS, {}))
    alpha, prior = search.score_alpha, search.window_prior
    combined = {
        page: alpha * semantic.get(page, 0.0) + (1 - alpha) * lexical.get(page, 0.0) * windows.get(page, 1) ** -prior
        for page in {**lexical, **semantic}
    }
    return sorted(combined, key=lambda page: (-combined[page], page))


def _by_best(scores: Mapping[str, float]) -> dict[str, float]:
    """Scores over the best of them, from a lower bound of 0 (clipped there); all alike when none is above it."""
    top = max(scores.values(), default=0.0)
    if top <= 0:
        return dict.fromkeys(scores, 1.0)
    return {page: max(0.0, score / top) for page, score in scores.items()}


def wording_votes(search: SearchSettings, windows: Mapping[str, int], weight: float | None = None) -> dict[str, float]:
    """The lexical leg's weight (or ``weight``: the passage ranking's) for each page cut into windows:
    ``weight_lexical * windows ** -window_prior``.

    The leg ranks a page by its best-matching window, so a page of 30 windows has 30 chances to hold some
    incidental word of a question (on vault-choose the Turkish Canvas page, 30 windows, came first for a
    Turkish question on enabling two-factor sign-in, which no Turkish page answers). The prior takes back part
    of those chances; entries (a chat turn, a bullet) are not counted: each is one short line, where a match
    is specific."""
    if search.window_prior <= 0:
        return {}
    weight = search.weight_lexical if weight is None else weight
    return {page: weight * n**-search.window_prior for page, n in windows.items() if n > 1}


def with_walk(search: SearchSettings, ranked: Sequence[str], walk: Sequence[str]) -> dict[str, float]:
    """The fused ranking fused again with a PageRank walk's ranking, so connected pages come up."""
    return rrf_weights([ranked, walk], k=search.rrf_k, weights=[1.0, GRAPH_WEIGHT])


def penalised(search: SearchSettings, weights: Mapping[str, float], flags: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Pages by weight after the quality penalty: each flag multiplies a page's weight by ``quality_penalty``,
    so two flags compound."""
    return sorted(weights, key=lambda p: -weights[p] * search.quality_penalty ** len(flags.get(p, ())))


def passage_pages(
    order: Mapping[str, Sequence[int]], shown: Callable[[int], bool] | None = None, agreed: Collection[int] = ()
) -> list[str]:
    """Pages by their best unit under the unit-by-unit fusion of the two unit legs (``chunk_order``'s keys are in
    that order), keeping those whose units ``shown`` allows (the summary rung's roles).

    The pages holding a unit both unit legs found (``agreed``) come first, in that order, then the rest: a unit
    only one leg found is that leg's evidence, which its own page vote already carries, while the passage vote
    stands for the agreement of the two (round eleven: on nine choosing sets pooled fused MRR@10 .8251 -> .8259,
    hit@5 the same; docs/retrieval.md)."""
    kept = [page for page, units in order.items() if shown is None or shown(units[0])]
    both = [page for page in kept if any(unit in agreed for unit in order[page])]
    first = set(both)
    return both + [page for page in kept if page not in first]


def chunk_order(lexical: Sequence[int], semantic: Sequence[int], page_of: Mapping[int, str]) -> dict[str, list[int]]:
    """Each page's candidate chunks, best first (plain RRF of the two chunk legs): the body rung shows the first."""
    fused = rrf_weights([lexical, semantic])
    order: dict[str, list[int]] = {}
    for cid in sorted(fused, key=lambda c: -fused[c]):
        if cid in page_of:
            order.setdefault(page_of[cid], []).append(cid)
    return order
