"""Retrieval quality per leg and fused, on labelled queries over the eval vault.

    python -m bench.retrieval [--embed-model models/multilingual-e5-small] [--index PATH]

Indexes and embeds the eval vault (SENTINEL_EVAL_VAULT, default ../shared/eval/obsidian-help; incrementally: a
second run embeds nothing), then ranks the pages of every answerable query in queries.tsv beside it (public) and
bench/heldout_queries.tsv (written for this project, never tuned on) through the real search code, and prints
nDCG@10, MRR@10, hit@1 and hit@5 for each leg, the fusions, and per language and kind. A page counts as found where
any of its chunks (or its summary) ranks; relevance is by page path, as labelled.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending, results
from sentinel.search.fusion import rrf
from sentinel.search.ladder import Ranking, fuse, rank_legs
from sentinel.settings import Settings
from tests.support.eval_data import eval_data_file, eval_vault_path

ROOT = Path(__file__).resolve().parents[1]
QUERY_FILES = {"public": eval_data_file("queries.tsv"), "heldout": ROOT / "bench" / "heldout_queries.tsv"}
METRICS = ("nDCG@10", "MRR@10", "hit@1", "hit@5")


@dataclass
class Query:
    id: str
    lang: str
    kind: str
    text: str
    relevant: set[str]


def load_queries(path: Path) -> list[Query]:
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [
        Query(r["id"], r["lang"], r["kind"], r["query"], {p.strip() for p in r["relevant"].split(";")})
        for r in rows
        if r["relevant"].strip() != "-"
    ]


def scores(ranked: list[str], relevant: set[str]) -> np.ndarray:
    top = ranked[:10]
    dcg = sum(1 / math.log2(i + 2) for i, p in enumerate(top) if p in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    first = next((i for i, p in enumerate(top) if p in relevant), None)
    return np.array(
        [
            dcg / ideal,
            0.0 if first is None else 1 / (first + 1),
            float(first == 0),
            float(first is not None and first < 5),
        ]
    )


Ranker = Callable[[Ranking, Query], list[str]]


def rankers(db, settings: Settings) -> dict[str, Ranker]:  # type: ignore[no-untyped-def]
    plain = settings.model_copy(update={"search": settings.search.model_copy(update={"fusion": "rrf"})})

    def leg(name: str) -> Ranker:
        return lambda ranking, _: ranking.legs.get(name, [])

    def fused(s: Settings, graph: bool = False) -> Ranker:
        return lambda ranking, _: fuse(db, s, ranking.legs, graph=graph).ranked

    return {
        "lexical (FTS5 bm25)": leg(results.LEG_LEXICAL),
        "semantic chunks": leg(results.LEG_CHUNKS),
        "semantic summaries": leg(results.LEG_SUMMARIES),
        "RRF lexical+chunks k=60": lambda ranking, _: rrf(
            [ranking.legs.get(results.LEG_LEXICAL, []), ranking.legs.get(results.LEG_CHUNKS, [])], k=60
        ),
        "RRF 3 legs k=60 (plain)": fused(plain),
        "weighted RRF 3 legs (kept)": fused(settings),
        "weighted RRF + PageRank (all queries)": fused(settings, graph=True),
    }


def table(title: str, rows: list[tuple[str, np.ndarray, str]]) -> None:
    print(f"\n### {title}\n")
    print("| ranking | " + " | ".join(METRICS) + " | cross-lingual hit@5 |")
    print("|---|" + "---|" * (len(METRICS) + 1))
    for name, values, extra in rows:
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in values) + f" | {extra} |")


def evaluate(db, settings: Settings, embedder) -> None:  # type: ignore[no-untyped-def]
    """Print the tables for every query file."""
    by_name = rankers(db, settings)
    for set_name, path in QUERY_FILES.items():
        queries = load_queries(path)
        rankings = [rank_legs(db, settings, embedder, q.text, "body", time.monotonic() + 60) for q in queries]
        rows = []
        per_query: dict[str, list[np.ndarray]] = {}
        for name, ranker in by_name.items():
            got = [scores(ranker(ranking, q), q.relevant) for ranking, q in zip(rankings, queries, strict=True)]
            per_query[name] = got
            cross = [s[3] for s, q in zip(got, queries, strict=True) if q.kind == "crosslingual"]
            rows.append((name, np.mean(got, axis=0), f"{int(sum(cross))}/{len(cross)}"))
        table(f"{set_name}: {len(queries)} answerable queries ({path.name})", rows)
        kept = per_query["weighted RRF 3 legs (kept)"]
        for facet in ("lang", "kind"):
            groups: dict[str, list[np.ndarray]] = {}
            for s, q in zip(kept, queries, strict=True):
                groups.setdefault(getattr(q, facet), []).append(s)
            table(
                f"{set_name}: weighted RRF by {facet}",
                [(f"{k} (n={len(v)})", np.mean(v, axis=0), "") for k, v in sorted(groups.items())],
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    parser.add_argument("--index", type=Path, default=ROOT / ".cache" / "bench" / "eval-index.db")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--reembed", action="store_true", help="the model changed: embed everything again")
    args = parser.parse_args(argv)
    settings = Settings(vault=args.vault, index_path=args.index, _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    embedder = OnnxEmbedder(args.embed_model, threads=int(os.environ.get("EMBED_THREADS", "2")))
    started = time.perf_counter()
    counts = embed_pending(db, embedder, reembed=args.reembed)
    print(f"embedded {counts.chunks} chunks, {counts.summaries} summaries in {time.perf_counter() - started:.1f}s")
    evaluate(db, settings, embedder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
