"""Two runs of ``bench/retrieval.py --per-query`` (one code each, the same sets) side by side: the shipped ranking's
MRR@10 / hit@5 (nDCG@10) per set, per language and pooled, the questions that moved, and the paired bootstrap of
the pooled MRR@10 (10,000 resamples, seed 0). Round eighteen (docs/retrieval.md) judges its fix with it.

    python bench/paired_runs.py BEFORE.json AFTER.json [--sets a,b] [--ranking NAME]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from bench.learned_order import bootstrap

SHIPPED = "shipped (PageRank when the query asks)"
# a question's row in --per-query: [language, nDCG@10, MRR@10, hit@1, hit@5]
NDCG, MRR, HIT5 = 1, 2, 4


def _cell(rows: list[list[object]]) -> str:
    a = np.array([[float(str(v)) for v in r[1:]] for r in rows])
    return f"{a[:, MRR - 1].mean():.3f} / {a[:, HIT5 - 1].mean():.3f} ({a[:, NDCG - 1].mean():.3f})"


def _rank(mrr: float) -> str:
    return f"{round(1 / mrr)}" if mrr > 0 else "out"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--sets", help="comma-separated (default: every set in both)")
    parser.add_argument("--ranking", default=SHIPPED)
    args = parser.parse_args(argv)
    before, after = json.loads(args.before.read_text()), json.loads(args.after.read_text())
    names = args.sets.split(",") if args.sets else [s for s in before if s in after]
    pooled: dict[str, list[list[object]]] = {"before": [], "after": []}
    print("| set | before | after | moved |")
    print("|---|---|---|---|")
    for name in names:
        b, a = before[name][args.ranking], after[name][args.ranking]
        assert b.keys() == a.keys(), name
        moved = [f"{q} {_rank(float(b[q][MRR]))} -> {_rank(float(a[q][MRR]))}" for q in b if b[q][MRR] != a[q][MRR]]
        for lang in sorted({str(r[0]) for r in b.values()}):
            rows_b = [r for r in b.values() if r[0] == lang]
            rows_a = [a[q] for q, r in b.items() if r[0] == lang]
            print(f"| {name} {lang} | {_cell(rows_b)} | {_cell(rows_a)} | |")
        print(f"| **{name}** | {_cell(list(b.values()))} | {_cell([a[q] for q in b])} | {', '.join(moved)} |")
        pooled["before"] += list(b.values())
        pooled["after"] += [a[q] for q in b]
    print(f"| pooled ({len(pooled['before'])}) | {_cell(pooled['before'])} | {_cell(pooled['after'])} | |")
    mrr_b = np.array([float(str(r[MRR])) for r in pooled["before"]])
    mrr_a = np.array([float(str(r[MRR])) for r in pooled["after"]])
    mean, low, high = bootstrap(mrr_b, mrr_a)
    rng = np.random.default_rng(0)
    draws = (mrr_a - mrr_b)[rng.integers(0, len(mrr_b), (10_000, len(mrr_b)))].mean(axis=1)
    print(f"paired bootstrap of MRR@10: {mean:+.4f} ({low:+.4f} to {high:+.4f}), <= 0 in {(draws <= 0).mean():.1%}")
    up = int((mrr_a > mrr_b).sum())
    down = int((mrr_a < mrr_b).sum())
    print(f"{up} questions up, {down} down")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
