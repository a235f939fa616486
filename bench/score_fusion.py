"""Fusing normalised scores, not only ranks, judged by round fifteen's rule (issue 32; docs/retrieval.md).

    python bench/score_fusion.py --index EVAL.db --convo-index CONVO.db [--sets a,b] [--per-query OUT.json]

Runs the legs once for every question of ``--sets`` (default: ``retrieval.CHOOSING``), keeps each unit leg's
candidates with their scores (the wording leg's bm25, the unit leg's exact centred cosine), then ranks each
question by main's shipped ranking and by every named variant (``VARIANTS``: the normalisation, where the convex
combination happens, alpha), and prints MRR@10 / hit@5 per set and pooled, whether each variant passes the rule
(pooled MRR@10 higher and hit@5 not lower than the bar) and the paired bootstrap of the best one's pooled MRR@10.
The bar is main's fusion by rank (``fusion`` = "weighted"); "shipped" is the search code's default as it is now
(round fifteen: ``fusion`` = "scores", ``fusion.convex_pages``), which must read as the variant it ships.
"""

from __future__ import annotations

import dataclasses
import itertools
import sqlite3
import sys
import time
from dataclasses import dataclass

import numpy as np

from bench.learned_order import bootstrap
from bench.retrieval import Query, scores, shipped_order
from bench.variant_bench import variant_main
from sentinel.search import fusion
from sentinel.search import results as r
from sentinel.search.fts_query import match_expression
from sentinel.search.graph import should_run
from sentinel.search.graph import walk as walk_graph
from sentinel.search.hits import quality_flags
from sentinel.search.ladder import CHUNKS_PER_PAGE, Ranking, rank_legs
from sentinel.search.lexical import lexical_chunks, lexical_terms
from sentinel.search.vectors import nearest, restored_rows
from sentinel.search.view import chunk_count, current_view
from sentinel.settings import Settings

ALPHAS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
VARIANTS = {
    f"{where} {norm} a{alpha}": (where, norm, alpha)
    for norm, where, alpha in itertools.product(("minmax", "tm"), ("units", "pages", "both"), ALPHAS)
}
MRR, HIT5 = 1, 3  # columns of ``retrieval.scores``


@dataclass
class Captured:
    """One question's legs, with each unit leg's candidates and their scores (higher is better)."""

    query: Query
    ranking: Ranking
    lexical: dict[int, float]  # the wording leg's units: -bm25
    semantic: dict[int, float]  # the unit leg's units: exact centred cosine
    page_of: dict[int, str]


def _bm25(db: sqlite3.Connection, words: list[str], ids: list[int]) -> dict[int, float]:
    if not ids:
        return {}
    expression = match_expression(words)
    rows = db.execute(
        f"SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? AND +rowid IN "
        f"({','.join('?' * len(ids))})",
        [expression, *ids],
    )
    found = {int(cid): -float(score) for cid, score in rows}
    return {cid: found.get(cid, 0.0) for cid in ids}


def _cosines(db: sqlite3.Connection, vector: np.ndarray, ids: list[int]) -> dict[int, float]:
    view = current_view(db)
    chunks = view.chunks
    if chunks is None or not ids:
        return {}
    at, held = view.rows.chunks.rows_of_items(np.array(ids, dtype=np.int64))
    rows, restored = restored_rows(db, chunks, at[held])
    centred = chunks.centres.centred(restored, chunks.centre_of[rows])
    query = chunks.centres.centred(vector[None, :])[0]
    return dict(zip(chunks.items[rows].tolist(), (centred @ query).tolist(), strict=True))


def captured(db: sqlite3.Connection, settings: Settings, embedder, q: Query) -> Captured:  # type: ignore[no-untyped-def]
    ranking = rank_legs(db, settings, embedder, q.text, "body", time.monotonic() + 60)
    depth = settings.search.leg_depth * CHUNKS_PER_PAGE
    terms = lexical_terms(db, q.text, chunk_count(db))
    lexical_ids = lexical_chunks(db, terms, depth)
    view = current_view(db)
    semantic_ids = nearest(db, view.chunks, ranking.vector, depth) if ranking.vector is not None else []
    page_of = {cid: page for page, cids in ranking.chunk_order.items() for cid in cids}
    for ids, leg in ((lexical_ids, r.LEG_LEXICAL), (semantic_ids, r.LEG_CHUNKS)):  # the legs' own candidates
        if ranking.legs.get(leg) is not None:
            assert list(dict.fromkeys(page_of[c] for c in ids if c in page_of)) == ranking.legs[leg], (q.id, leg)
    return Captured(
        q, ranking, _bm25(db, terms.words, lexical_ids), _cosines(db, ranking.vector, semantic_ids), page_of
    )


def normalised(found: dict[int, float], norm: str) -> dict[int, float]:
    if not found:
        return {}
    top, low = max(found.values()), (min(found.values()) if norm == "minmax" else 0.0)
    if top <= low:
        return dict.fromkeys(found, 1.0)
    return {cid: max(0.0, (s - low) / (top - low)) for cid, s in found.items()}


def _order(
    db: sqlite3.Connection, settings: Settings, rankings: list[list[str]], weights: list[float], own: list, text: str
) -> list[str]:
    """As ``ladder.fuse`` after its legs: weighted RRF, the PageRank walk when the query asks, the quality flags."""
    search = settings.search
    fused = fusion.rrf_weights(rankings, k=search.rrf_k, weights=weights, item_weights=own)
    if should_run(settings, text, None):
        fused = fusion.with_walk(search, list(fused), walk_graph(db, list(fused), None))
    return fusion.penalised(search, fused, quality_flags(db, list(fused)))


def variant(db: sqlite3.Connection, settings: Settings, c: Captured, where: str, norm: str, alpha: float) -> list[str]:
    ranking, search = c.ranking, settings.search
    if c.ranking.vector is None:
        return shipped_order(db, settings, ranking, c.query.text)
    lex, sem = normalised(c.lexical, norm), normalised(c.semantic, norm)
    passages = ranking.passages or []
    if where in ("units", "both"):
        combined = {cid: alpha * sem.get(cid, 0.0) + (1 - alpha) * lex.get(cid, 0.0) for cid in set(lex) | set(sem)}
        order: dict[str, list[int]] = {}
        for cid in sorted(combined, key=lambda i: (-combined[i], i)):
            if cid in c.page_of:
                order.setdefault(c.page_of[cid], []).append(cid)
        passages = fusion.passage_pages(order, None, set(c.lexical).intersection(c.semantic))
    if where == "units":
        return shipped_order(db, settings, dataclasses.replace(ranking, passages=passages), c.query.text)
    windows = ranking.windows or {}
    best_lex: dict[str, float] = {}
    best_sem: dict[str, float] = {}
    for best, normed in ((best_lex, lex), (best_sem, sem)):
        for cid, s in normed.items():
            page = c.page_of.get(cid)
            if page is not None and s > best.get(page, -1.0):
                best[page] = s
    prior = search.window_prior
    pages = {
        p: alpha * best_sem.get(p, 0.0) + (1 - alpha) * best_lex.get(p, 0.0) * windows.get(p, 1) ** -prior
        for p in set(best_lex) | set(best_sem)
    }
    convex = sorted(pages, key=lambda p: (-pages[p], p))
    return beside_votes(db, settings, convex, ranking, passages, c.query.text)


def beside_votes(
    db: sqlite3.Connection,
    settings: Settings,
    convex: list[str],
    ranking: Ranking,
    passages: list[str],
    text: str,
    summaries: bool = True,
) -> list[str]:
    """A convex page ranking joined by the other votes as ``fuse_legs`` joins it (the summary leg unless
    ``summaries`` is off, the passage vote ``passages``), then ``_order`` (bench/page_evidence.py too)."""
    search, windows = settings.search, ranking.windows or {}
    rankings, weights, own = [convex], [search.weight_lexical + search.weight_chunks], [{}]
    if summaries:
        rankings.append(ranking.legs.get(r.LEG_SUMMARIES, []))
        weights.append(search.weight_summaries)
        own.append(dict.fromkeys(ranking.excerpts or (), search.weight_excerpts))
    if passages and search.weight_passages > 0:
        rankings.append(passages)
        weights.append(search.weight_passages)
        own.append(fusion.wording_votes(search, windows, search.weight_passages))
    return _order(db, settings, rankings, weights, own, text)


def ranked_sets(sets, embedder) -> dict[str, dict[str, list[np.ndarray]]]:  # type: ignore[no-untyped-def]
    """set -> ranking name ("main", each variant) -> every question's scores."""
    out: dict[str, dict[str, list[np.ndarray]]] = {}
    for each in sets:
        db, shipped = each.db, each.settings
        settings = shipped.model_copy(update={"search": shipped.search.model_copy(update={"fusion": "weighted"})})
        got: dict[str, list[np.ndarray]] = {"main": [], **{name: [] for name in VARIANTS}, "shipped": []}
        for q in each.queries:
            c = captured(db, settings, embedder, q)
            got["main"].append(scores(shipped_order(db, settings, c.ranking, q.text), q.relevant))
            for name, (where, norm, alpha) in VARIANTS.items():
                got[name].append(scores(variant(db, settings, c, where, norm, alpha), q.relevant))
            got["shipped"].append(scores(shipped_order(db, shipped, c.ranking, q.text), q.relevant))
        out[each.name] = got
    return out


def judged(per_set: dict[str, dict[str, list[np.ndarray]]]) -> None:
    names = [n for n in next(iter(per_set.values())) if n != "shipped"]
    pooled = {n: np.array([s for got in per_set.values() for s in got[n]]) for n in names}
    bar = pooled["main"].mean(axis=0)
    print("| ranking | pooled MRR@10 / hit@5 | " + " | ".join(per_set) + " | rule |")
    print("|---|---|" + "---|" * (len(per_set) + 1))
    passing = []
    for n in names:
        cells = [
            f"{np.mean(got[n], axis=0)[MRR]:.3f} / {np.mean(got[n], axis=0)[HIT5]:.3f}" for got in per_set.values()
        ]
        p = pooled[n].mean(axis=0)
        passes = p[MRR] > bar[MRR] + 1e-12 and p[HIT5] >= bar[HIT5] - 1e-12
        passing += [n] if passes and n != "main" else []
        verdict = "bar" if n == "main" else ("passes" if passes else "fails")
        print(f"| {n} | {p[MRR]:.4f} / {p[HIT5]:.4f} | " + " | ".join(cells) + f" | {verdict} |")
    best = max(names[1:], key=lambda n: pooled[n].mean(axis=0)[MRR])
    for n in dict.fromkeys([*passing, best]):
        mean, low, high = bootstrap(pooled["main"][:, MRR], pooled[n][:, MRR])
        print(f"bootstrap {n}: {mean:+.4f} ({low:+.4f} to {high:+.4f})")
    print("chosen:", max(passing, key=lambda n: pooled[n].mean(axis=0)[MRR]) if passing else "none passes")
    shipped = np.array([s for got in per_set.values() for s in got.get("shipped", [])])
    if len(shipped):
        print(
            f"shipped (the search code's default): {shipped.mean(axis=0)[MRR]:.4f} / {shipped.mean(axis=0)[HIT5]:.4f}"
        )


def main(argv: list[str] | None = None) -> int:
    return variant_main(__doc__.splitlines()[0], ranked_sets, judged, argv)


if __name__ == "__main__":
    sys.exit(main())
