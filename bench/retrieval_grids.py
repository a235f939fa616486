"""The weight grids and the translation-family split of bench/retrieval.py (``--sweep``, ``--sweep-rerank``,
``--families``): diagnostics over the choosing sets only, printed as tables; nothing here is shipped."""

from __future__ import annotations

import itertools
import time

import numpy as np

from bench.retrieval import CHOOSING, EvalSet, scores
from sentinel.search.families import folder_language, page_vectors
from sentinel.search.graph import should_run
from sentinel.search.ladder import fuse, rank_legs
from sentinel.search.view import current_view

# The grid that chose the shipped weights (lexical 1.5, chunks 2.0, summaries 0.75 with 120-word overlapping
# windows, issue 32 round four; docs/retrieval.md).
SWEEP = {
    "weight_summaries": (0.75, 1.0, 1.25, 1.5),
    "weight_chunks": (1.5, 2.0, 2.5, 3.0),
    "weight_lexical": (1.0, 1.25, 1.5, 2.0),
}


def sweep(sets: list[EvalSet], embedder) -> None:  # type: ignore[no-untyped-def]
    """MRR@10 / hit@5 of the shipped ranking for each combination of ``SWEEP`` (the legs are ranked once), on
    the choosing sets only."""
    chosen = [s for s in sets if s.name in CHOOSING]
    ranked = [
        [rank_legs(s.db, s.settings, embedder, q.text, "body", time.monotonic() + 60) for q in s.queries]
        for s in chosen
    ]
    print("\n### leg weights: MRR@10 / hit@5 of the shipped ranking, choosing sets only\n")
    print("| " + " | ".join(SWEEP) + " | " + " | ".join(s.name for s in chosen) + " |")
    print("|" + "---|" * (len(SWEEP) + len(chosen)))
    for values in itertools.product(*SWEEP.values()):
        cells = []
        for s, rankings in zip(chosen, ranked, strict=True):
            changed = s.settings.search.model_copy(update=dict(zip(SWEEP, values, strict=True)))
            variant = s.settings.model_copy(update={"search": changed})
            got = [
                scores(
                    fuse(
                        s.db, variant, rk.legs, graph=should_run(variant, q.text, None), passages=rk.passages or ()
                    ).ranked,
                    q.relevant,
                )
                for q, rk in zip(s.queries, rankings, strict=True)
            ]
            mean = np.mean(got, axis=0)
            cells.append(f"{mean[1]:.3f} / {mean[3]:.3f}")
        print("| " + " | ".join(str(v) for v in values) + " | " + " | ".join(cells) + " |")


RERANK_WEIGHTS = (0.0, 1.0, 2.0, 3.0)
EXCERPT_WEIGHTS = (1.5, 1.0, 0.5, 0.25)


def sweep_rerank(sets: list[EvalSet], embedder) -> None:  # type: ignore[no-untyped-def]
    """MRR@10 and hit@5 of the shipped ranking with the second stage at each weight (0: off), choosing sets only."""
    chosen = [s for s in sets if s.name in CHOOSING]
    ranked = [
        [rank_legs(s.db, s.settings, embedder, q.text, "body", time.monotonic() + 60) for q in s.queries]
        for s in chosen
    ]
    print("\n### second stage weight (depth 30): MRR@10 / hit@5 of the shipped ranking, choosing sets only\n")
    print("| excerpt summaries weight | second stage weight | " + " | ".join(s.name for s in chosen) + " |")
    print("|---|---|" + "---|" * len(chosen))
    for excerpts, weight in itertools.product(EXCERPT_WEIGHTS, RERANK_WEIGHTS):
        cells = []
        for s, rankings in zip(chosen, ranked, strict=True):
            changed = s.settings.search.model_copy(
                update={"rerank": weight > 0, "rerank_weight": weight, "weight_excerpts": excerpts}
            )
            variant = s.settings.model_copy(update={"search": changed})
            got = [
                scores(
                    fuse(
                        s.db,
                        variant,
                        rk.legs,
                        graph=should_run(variant, q.text, None),
                        vector=rk.vector,
                        passages=rk.passages or (),
                    ).ranked,
                    q.relevant,
                )
                for q, rk in zip(s.queries, rankings, strict=True)
            ]
            mean = np.mean(got, axis=0)
            cells.append(f"{mean[1]:.3f} / {mean[3]:.3f}")
        print(f"| {excerpts} | {weight} | " + " | ".join(cells) + " |")


def family_split(each: EvalSet) -> None:
    """How well near-identical page vectors find translations, on one (choosing) set: a translation pair is
    two pages in different language folders relevant to one query; every other cross-language pair is not.
    For each threshold: the share of translation pairs joined (mutually nearest and at or above it) and of
    joined pairs that are not translations."""
    db = each.db
    paths = [p for p in current_view(db).rows.pages if folder_language(p)]
    vectors = page_vectors(db, paths)
    paths = [p for p in paths if p in vectors]
    matrix = np.stack([vectors[p] for p in paths])
    cosine = matrix @ matrix.T
    langs = [folder_language(p) for p in paths]
    index = {p: i for i, p in enumerate(paths)}
    truth = set()
    for q in each.queries:
        rel = [index[p] for p in q.relevant if p in index]
        truth |= {(a, b) for a in rel for b in rel if a < b and langs[a] != langs[b]}
    best: dict[tuple[int, str], int] = {}
    for i in range(len(paths)):
        for j in range(len(paths)):
            key = (i, langs[j])
            if langs[i] != langs[j] and (key not in best or cosine[i, j] > cosine[i, best[key]]):
                best[key] = j
    mutual = {(min(i, j), max(i, j)) for (i, _), j in best.items() if best.get((j, langs[i])) == i}
    print(f"\n### translation families on {each.name}: {len(truth)} labelled pairs\n")
    print("| centred cosine >= | labelled pairs joined | joined pairs not labelled (of all joined) |")
    print("|---|---|---|")
    for threshold in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9):
        joined = {pair for pair in mutual if cosine[pair] >= threshold}
        hit = len(joined & truth)
        print(f"| {threshold} | {hit}/{len(truth)} | {len(joined - truth)}/{len(joined)} |")
