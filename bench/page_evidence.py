"""Round sixteen (issue 32; docs/retrieval.md): what a page's score is made of, judged by the round's rule.

    python bench/page_evidence.py --index EVAL.db --convo-index CONVO.db [--sets a,b] [--per-query OUT.json]

Runs the legs once for every question of ``--sets`` (default: ``retrieval.CHOOSING``) and keeps each scoring
leg's candidates with the scores the search code ranks them by (the wording leg's units: ``lexical_scored``; the
unit leg's: ``nearest_scored``'s exact centred cosine; the summary leg's pages: the same over page summaries).
Then ranks each question by main's shipped ranking (``retrieval.shipped_order``) and by every variant of
``VARIANTS``, and judges them with round fifteen's table and rule (``score_fusion.judged``).
"""

from __future__ import annotations

import dataclasses
import sqlite3
import sys
import time
from dataclasses import dataclass

import numpy as np

from bench.retrieval import Query, scores, shipped_order
from bench.score_fusion import beside_votes, judged
from bench.variant_bench import variant_main
from sentinel.search import fusion
from sentinel.search import results as r
from sentinel.search.fusion import _by_best
from sentinel.search.ladder import CHUNKS_PER_PAGE, Ranking, rank_legs
from sentinel.search.lexical import lexical_scored, lexical_terms
from sentinel.search.vectors import nearest_scored
from sentinel.search.view import chunk_count, current_view
from sentinel.settings import Settings


@dataclass
class Evidence:
    """One question's legs, with every candidate's score in each scoring leg (higher is better)."""

    query: Query
    ranking: Ranking
    lexical: dict[int, float]  # the wording leg's units
    semantic: dict[int, float]  # the unit leg's units
    summaries: dict[str, float]  # the summary leg's pages
    page_of: dict[int, str]


def evidence(db: sqlite3.Connection, settings: Settings, embedder, q: Query) -> Evidence:  # type: ignore[no-untyped-def]
    ranking = rank_legs(db, settings, embedder, q.text, "body", time.monotonic() + 60)
    depth = settings.search.leg_depth
    lexical = lexical_scored(db, lexical_terms(db, q.text, chunk_count(db)), depth * CHUNKS_PER_PAGE)
    view = current_view(db)
    semantic: dict[int, float] = {}
    summaries: dict[str, float] = {}
    if ranking.vector is not None and view.chunks is not None:
        semantic = nearest_scored(db, view.chunks, ranking.vector, depth * CHUNKS_PER_PAGE)
    if ranking.vector is not None and view.summaries is not None:
        by_id = nearest_scored(db, view.summaries, ranking.vector, depth)
        summaries = dict(zip(view.rows.pages.paths_of(list(by_id)), by_id.values(), strict=True))
        assert list(summaries) == ranking.legs.get(r.LEG_SUMMARIES), q.id  # the summary leg, with its scores
    page_of = {cid: page for page, cids in ranking.chunk_order.items() for cid in cids}
    for found, leg in ((lexical, r.LEG_LEXICAL), (semantic, r.LEG_CHUNKS)):
        assert _same_scores(page_scores(found, page_of), (ranking.scores or {}).get(leg, {})), (q.id, leg)
    return Evidence(q, ranking, lexical, semantic, summaries, page_of)


def page_scores(units: dict[int, float], page_of: dict[int, str], rank: int = 0) -> dict[str, float]:
    """Each page's best unit score (``rank`` 1: its second best, from a lower bound of 0; 0 where it has one)."""
    by_page: dict[str, list[float]] = {}
    for cid, score in units.items():
        if cid in page_of:
            by_page.setdefault(page_of[cid], []).append(score)
    if rank == 0:
        return {page: max(found) for page, found in by_page.items()}
    return {page: max(0.0, sorted(found)[-2]) if len(found) > 1 else 0.0 for page, found in by_page.items()}


def _same_scores(a: dict[str, float], b: dict[str, float]) -> bool:
    """One leg's page scores, computed twice (bm25 sums may differ in the last bit)."""
    return a.keys() == b.keys() and all(abs(a[p] - b[p]) <= 1e-9 * max(1.0, abs(b[p])) for p in a)


# name -> (family, parameters); committed before any is ranked (docs/retrieval.md, round sixteen)
VARIANTS: dict[str, tuple[str, dict[str, float]]] = {
    **{
        f"second sem{sem} lex{lex}": ("second", {"semantic": sem, "lexical": lex})
        for sem, lex in ((0.25, 0.0), (0.5, 0.0), (0.0, 0.25), (0.0, 0.5), (0.25, 0.25), (0.5, 0.5))
    },
    **{
        f"summary g{gamma} {'kept' if keep else 'gone'}": ("summary", {"gamma": gamma, "keep": keep})
        for gamma in (0.1, 0.2, 0.3)
        for keep in (1.0, 0.0)
    },
    **{
        f"weights x{scale} a{alpha}": ("weights", {"scale": scale, "alpha": alpha})
        for scale in (0.75, 1.0, 1.25, 1.5)
        for alpha in (0.4, 0.5)
        if (scale, alpha) != (1.0, 0.4)  # main
    },
}


def _updated(settings: Settings, **search: float) -> Settings:
    return settings.model_copy(update={"search": settings.search.model_copy(update=search)})


def variant(db: sqlite3.Connection, settings: Settings, e: Evidence, family: str, p: dict[str, float]) -> list[str]:
    ranking, text = e.ranking, e.query.text
    if ranking.vector is None or ranking.scores is None:
        return shipped_order(db, settings, ranking, text)
    if family == "second":  # a page's best unit plus lambda x its second best, in the convex ranking
        legs = {r.LEG_LEXICAL: (e.lexical, p["lexical"]), r.LEG_CHUNKS: (e.semantic, p["semantic"])}
        scored = {}  # main's best unit scores, as they are, plus lambda x the second best
        for leg, by in (ranking.scores or {}).items():
            units, second = legs[leg]
            next_best = page_scores(units, e.page_of, 1)
            scored[leg] = {page: best + second * next_best.get(page, 0.0) for page, best in by.items()}
        return shipped_order(db, settings, dataclasses.replace(ranking, scores=scored), text)
    if family == "summary":
        return _with_summary(db, settings, e, p["gamma"], keep=bool(p["keep"]))
    if family == "weights":  # the convex ranking's RRF weight and alpha: settings alone
        search = settings.search
        scaled = _updated(
            settings,
            score_alpha=p["alpha"],
            weight_lexical=search.weight_lexical * p["scale"],
            weight_chunks=search.weight_chunks * p["scale"],
        )
        return shipped_order(db, scaled, ranking, text)
    raise ValueError(family)


def _with_summary(db: sqlite3.Connection, settings: Settings, e: Evidence, gamma: float, keep: bool) -> list[str]:
    """The summary leg's cosine (over its best, from 0) in the convex ranking with share ``gamma``; the leg's own
    vote by rank ``keep``s or goes. At gamma 0, kept: main's ranking (``ranked_sets`` checks)."""
    ranking, search = e.ranking, settings.search
    windows = ranking.windows or {}
    convex = fusion.convex_pages(search, ranking.scores or {}, windows)
    alpha, prior = search.score_alpha, search.window_prior
    lex = _by_best((ranking.scores or {}).get(r.LEG_LEXICAL, {}))
    sem = _by_best((ranking.scores or {}).get(r.LEG_CHUNKS, {}))
    summ = _by_best(e.summaries)
    pages = [*convex, *(p for p in summ if p not in convex and gamma > 0)]
    part = {p: alpha * sem.get(p, 0.0) + (1 - alpha) * lex.get(p, 0.0) * windows.get(p, 1) ** -prior for p in pages}
    combined = {p: (1 - gamma) * part[p] + gamma * summ.get(p, 0.0) for p in pages}
    ranked = sorted(combined, key=lambda page: (-combined[page], page))
    return beside_votes(db, settings, ranked, ranking, ranking.passages or [], e.query.text, summaries=keep)


def ranked_sets(sets, embedder) -> dict[str, dict[str, list[np.ndarray]]]:  # type: ignore[no-untyped-def]
    """set -> ranking name ("main", each variant) -> every question's scores."""
    out: dict[str, dict[str, list[np.ndarray]]] = {}
    for each in sets:
        db, settings = each.db, each.settings
        got: dict[str, list[np.ndarray]] = {"main": [], **{name: [] for name in VARIANTS}}
        for q in each.queries:
            e = evidence(db, settings, embedder, q)
            shipped = shipped_order(db, settings, e.ranking, q.text)
            if e.ranking.vector is not None:
                assert _with_summary(db, settings, e, 0.0, keep=True) == shipped, q.id
            got["main"].append(scores(shipped, q.relevant))
            for name, (family, p) in VARIANTS.items():
                got[name].append(scores(variant(db, settings, e, family, p), q.relevant))
        out[each.name] = got
    return out


def main(argv: list[str] | None = None) -> int:
    return variant_main(__doc__.splitlines()[0], ranked_sets, judged, argv)


if __name__ == "__main__":
    sys.exit(main())
