"""The second stage where the page's structure is entries, judged by round fourteen's rule (issue 32;
docs/retrieval.md).

    python bench/entry_stage.py --index EVAL.db --convo-index CONVO.db [--sets a,b] [--per-query OUT.json]

Runs the legs once for every question of ``--sets`` (default: ``retrieval.CHOOSING``), then ranks each by main's
shipped ranking (second stage off) and by every named variant (``VARIANTS``: which pages are entry-level, which
candidates are reordered, the stage's weight), and prints MRR@10 / hit@5 per set and pooled, and whether each
variant passes the rule: pooled MRR@10 higher and hit@5 not lower than the bar, and no set lower on either.
"""

from __future__ import annotations

import itertools
import sqlite3
import sys
import time

import numpy as np

from bench.retrieval import scores, shipped_order
from bench.variant_bench import variant_main
from sentinel.search.fusion import rrf
from sentinel.search.ladder import rank_legs
from sentinel.search.rerank import best_unit_ids, reranked
from sentinel.search.view import SearchView, current_view
from sentinel.vault.entries import ENTRY_UNIT

VARIANTS = {
    f"{entries} {scope} w{weight}": (entries, scope, weight)
    for entries, scope, weight in itertools.product(("best", "most"), ("among", "lead"), (0.5, 1.0))
}
MRR, HIT5 = 1, 3  # columns of ``retrieval.scores``


def entry_level(db: sqlite3.Connection, best: dict[str, tuple[float, int]], entries: str) -> set[str]:
    """The pages whose structure is entries (``chunks.kind``, as ``sentinel.vault.entries`` cuts them):
    ``best``, the page's best unit is an entry; ``most``, more than half of the page's units are."""
    if not best:
        return set()
    if entries == "best":
        ids = [item for _, item in best.values()]
        kinds = dict(db.execute(f"SELECT id, kind FROM chunks WHERE id IN ({','.join('?' * len(ids))})", ids))
        return {path for path, (_, item) in best.items() if kinds.get(item) == ENTRY_UNIT}
    paths = list(best)
    rows = db.execute(
        f"SELECT path, AVG(kind = ?) FROM chunks WHERE path IN ({','.join('?' * len(paths))}) GROUP BY path",
        [ENTRY_UNIT, *paths],
    )
    return {str(path) for path, share in rows if share > 0.5}


def scoped(  # type: ignore[no-untyped-def]
    db, view: SearchView, query, ranked: list[str], *, depth: int, k: float, weight: float, scope: str, entries: str
) -> list[str]:
    """The second stage, scoped: ``among`` reorders only the entry-level pages of the top ``depth`` among
    themselves, in the slots they hold (prose pages keep their places); ``lead`` reorders the whole top as
    ``rerank.reranked`` does, only when the first page is entry-level."""
    top = ranked[:depth]
    best = best_unit_ids(db, view, query, top)
    level = entry_level(db, best, entries)
    if scope == "lead":
        return reranked(db, view, query, ranked, depth=depth, weight=weight, k=k) if top[0] in level else ranked
    best = {p: best[p] for p in level}
    if len(best) < 2:
        return ranked
    by_unit = sorted(best, key=lambda p: -best[p][0])
    order = iter(rrf([[p for p in top if p in best], by_unit], k=k, weights=[1.0, weight]))
    return [next(order) if p in best else p for p in top] + ranked[depth:]


def ranked_sets(sets, embedder) -> dict[str, dict[str, list[np.ndarray]]]:  # type: ignore[no-untyped-def]
    """set -> ranking name ("main", each variant, "all w1.0": today's stage) -> every question's scores."""
    out: dict[str, dict[str, list[np.ndarray]]] = {}
    for each in sets:
        db, settings = each.db, each.settings
        search = settings.search.model_copy(update={"rerank": False})
        plain = settings.model_copy(update={"search": search})
        got: dict[str, list[np.ndarray]] = {"main": [], "all w1.0": [], **{name: [] for name in VARIANTS}}
        for q in each.queries:
            ranking = rank_legs(db, plain, embedder, q.text, "body", time.monotonic() + 60)
            shipped = shipped_order(db, plain, ranking, q.text)
            got["main"].append(scores(shipped, q.relevant))
            view = current_view(db)
            stage = {"depth": search.rerank_depth, "k": search.rrf_k}
            got["all w1.0"].append(scores(reranked(db, view, ranking.vector, shipped, weight=1.0, **stage), q.relevant))
            for name, (entries, scope, weight) in VARIANTS.items():
                order = scoped(db, view, ranking.vector, shipped, weight=weight, scope=scope, entries=entries, **stage)
                got[name].append(scores(order, q.relevant))
        out[each.name] = got
    return out


def judged(per_set: dict[str, dict[str, list[np.ndarray]]]) -> None:
    names = list(next(iter(per_set.values())))
    pooled = {n: np.mean([s for got in per_set.values() for s in got[n]], axis=0) for n in names}
    bar = pooled["main"]
    print("| ranking | pooled MRR@10 / hit@5 | " + " | ".join(per_set) + " | rule |")
    print("|---|---|" + "---|" * (len(per_set) + 1))
    for n in names:
        cells, worse = [], False
        for got in per_set.values():
            m, b = np.mean(got[n], axis=0), np.mean(got["main"], axis=0)
            worse |= bool(m[MRR] < b[MRR] - 1e-12 or m[HIT5] < b[HIT5] - 1e-12)
            cells.append(f"{m[MRR]:.3f} / {m[HIT5]:.3f}")
        p = pooled[n]
        passes = p[MRR] > bar[MRR] + 1e-12 and p[HIT5] >= bar[HIT5] - 1e-12 and not worse
        verdict = "bar" if n == "main" else ("passes" if passes else "fails")
        print(f"| {n} | {p[MRR]:.4f} / {p[HIT5]:.4f} | " + " | ".join(cells) + f" | {verdict} |")


def main(argv: list[str] | None = None) -> int:
    return variant_main(__doc__.splitlines()[0], ranked_sets, judged, argv)


if __name__ == "__main__":
    sys.exit(main())
