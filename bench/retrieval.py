"""Retrieval quality per leg and fused, on labelled queries over the eval vault.

    python bench/retrieval.py [--embed-model models/multilingual-e5-small] [--index PATH]
                              [--save BEFORE.json] [--compare BEFORE.json]

Indexes and embeds the eval vault (SENTINEL_EVAL_VAULT, default ../shared/eval/obsidian-help; incrementally: a
second run embeds nothing), then ranks the pages of every answerable query in queries.tsv beside it (public),
bench/heldout_queries.tsv (written for this project), bench/vault_questions.tsv (fresh vault questions, split
by sha256 into vault-choose and vault-report), bench/vault_questions_fresh.tsv (vault-fresh; decided round
four, chooses since round six), bench/vault_questions_fresh2.tsv (vault-fresh2; reported round six, chooses
since round seven), bench/vault_questions_fresh3.tsv (vault-fresh3; reported round seven, chooses since round
eight), bench/vault_questions_fresh4.tsv (vault-fresh4; reported round eight, chooses since round nine),
bench/vault_questions_fresh5.tsv (vault-fresh5; reported round nine, chooses since round ten),
bench/vault_questions_fresh6.tsv (vault-fresh6; reported round ten, chooses since round eleven),
bench/vault_questions_fresh7.tsv (vault-fresh7; reported round eleven, chooses since round twelve) and
bench/vault_questions_fresh8.tsv (vault-fresh8, round twelve, report-only) through the real search code, and prints
nDCG@10, MRR@10, hit@1 and hit@5 for each leg, the fusions, and nDCG@10 of every ranking per language and kind.
A page counts as found where any of its chunks (or its summary) ranks; relevance is by page path, as labelled.
``--vault`` may be a part of the eval vault (e.g. a copy of its en/ folder, with its own ``--index``, when there
is no time to embed all four languages): each query's relevant pages are then those present, and a query with
none left is dropped.
``--save`` writes every cell to a JSON file; ``--compare`` prints each cell as ``now (change)`` against one.
``--sweep`` prints the shipped ranking's MRR@10 / hit@5 over the grid of leg weights that chose the shipped
ones, on the choosing sets only: a weighting is kept only where both choosing sets gain.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import sqlite3
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
from sentinel.search.families import collapse
from sentinel.search.fusion import rrf
from sentinel.search.graph import should_run
from sentinel.search.ladder import Ranking, fuse, rank_legs
from sentinel.settings import Settings
from tests.support.eval_data import eval_data_file, eval_vault_path

ROOT = Path(__file__).resolve().parents[1]
QUERY_FILES = {"public": eval_data_file("queries.tsv"), "heldout": ROOT / "bench" / "heldout_queries.tsv"}
# The conversation set (bench/convo_set.py): its own vault; "choose" may choose weights, "report" never does.
CONVO_FILE = ROOT / "bench" / "convo" / "questions.tsv"
CONVO_VAULT = ROOT / "bench" / "convo" / "vault"
CONVO_SETS = {"convo-choose": "choose", "convo-report": "report"}
# Fresh vault questions (issue 32, round three) over the eval vault, split by each question's sha256
# (``vault_split``): "choose" may choose weights, "report" never does.
VAULT_FILE = ROOT / "bench" / "vault_questions.tsv"
VAULT_SETS = {"vault-choose": "choose", "vault-report": "report"}
# The vault questions written blind, one file a round (issue 32; rounds in docs/retrieval.md), whole, no halves.
# Each was taken in only after its round's choice was committed and reported once there (read for a report, a set
# is no longer blind); from the next round on it chooses (it is in CHOOSING). Round five's "vault-fresh" has 80
# questions (20 a language), the others 60 (15 a language), each on pages the earlier sets label least.
# set name -> (the round that read it first, its file)
BLIND_ROUNDS = {
    "vault-fresh": 5,
    "vault-fresh2": 6,
    "vault-fresh3": 7,
    "vault-fresh4": 8,
    "vault-fresh5": 9,
    "vault-fresh6": 10,
    "vault-fresh7": 11,
    "vault-fresh8": 12,
    "vault-fresh9": 13,
    "vault-fresh10": 14,
    "vault-fresh11": 15,
    "vault-fresh12": 16,
    "vault-fresh13": 17,
    "vault-fresh14": 18,
    "vault-fresh15": 19,
    "vault-fresh16": 20,
    "vault-fresh17": 21,
    "vault-fresh18": 22,
}


def whole_set_file(name: str) -> Path:
    """Where a blind set's questions live: ``vault-freshN`` -> bench/vault_questions_freshN.tsv."""
    return ROOT / "bench" / f"vault_questions_{name.removeprefix('vault-')}.tsv"


# The whole-file vault sets, by name.
WHOLE_SETS = {name: whole_set_file(name) for name in BLIND_ROUNDS}
# What a run ranks when --sets is not given: every set.
DEFAULT_SETS = ",".join(
    ["public", "heldout", "vault-choose", "vault-report", *WHOLE_SETS, "convo-choose", "convo-report"]
)
METRICS = ("nDCG@10", "MRR@10", "hit@1", "hit@5")


@dataclass
class Query:
    id: str
    lang: str
    kind: str
    text: str
    relevant: set[str]


def vault_split(query: str) -> str:
    """The half a question belongs to, by its text alone: the first byte of its sha256 even chooses, odd
    reports. A question that is reworded may change halves; one that is added moves no other."""
    return "choose" if hashlib.sha256(query.encode("utf-8")).digest()[0] % 2 == 0 else "report"


def row_split(row: dict[str, str]) -> str:
    """A row's split: its ``split`` column where the file has one (the conversation set), else ``vault_split``."""
    return row["split"] if row.get("split") else vault_split(row["query"])


def load_queries(path: Path, present: set[str] | None = None, split: str | None = None) -> list[Query]:
    """The answerable queries of a file; with ``present`` (the pages of a part of the vault), each query's
    relevant pages are those present, and a query with none left is dropped. ``split``: only the rows of
    that split (``choose`` or ``report``, ``row_split``)."""
    with path.open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if split is None or row_split(r) == split]
    queries = [
        Query(r["id"], r["lang"], r["kind"], r["query"], {p.strip() for p in r["relevant"].split(";")})
        for r in rows
        if r["relevant"].strip() != "-"
    ]
    for q in queries:
        q.relevant &= present if present is not None else q.relevant
    return [q for q in queries if q.relevant]


def vault_pages(db: sqlite3.Connection) -> set[str]:
    return {str(row[0]) for row in db.execute("SELECT path FROM pages")}


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


def shipped_order(db: sqlite3.Connection, settings: Settings, ranking: Ranking, query: str) -> list[str]:
    """The ranking search() ships for legs already ranked: fused, PageRank when the query asks, the second stage
    as ``settings`` says. Every bench that scores "main" against a variant starts from this one order."""
    return fuse(
        db,
        settings,
        ranking.legs,
        graph=should_run(settings, query, None),
        vector=ranking.vector,
        windows=ranking.windows,
        excerpts=ranking.excerpts,
        passages=ranking.passages or (),
        scores=ranking.scores,
        feedback=ranking.feedback or (),
    ).ranked


def rankers(db, settings: Settings, embedder=None) -> dict[str, Ranker]:  # type: ignore[no-untyped-def]
    plain = settings.model_copy(update={"search": settings.search.model_copy(update={"fusion": "rrf"})})
    staged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": True})})
    unstaged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": False})})

    def leg(name: str) -> Ranker:
        return lambda ranking, _: ranking.legs.get(name, [])

    def fused(s: Settings, graph: bool = False) -> Ranker:
        return lambda ranking, _: fuse(db, s, ranking.legs, graph=graph, passages=ranking.passages or ()).ranked

    def shipped(s: Settings) -> Ranker:
        return lambda ranking, q: shipped_order(db, s, ranking, q.text)

    def one_per_family(s: Settings) -> Ranker:
        return lambda ranking, q: collapse(db, shipped(s)(ranking, q), ranking.language).ranked

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
        "shipped (PageRank when the query asks)": lambda ranking, q: (
            fuse(
                db,
                settings,
                ranking.legs,
                graph=should_run(settings, q.text, None),
                passages=ranking.passages or (),
                scores=ranking.scores,
                feedback=ranking.feedback or (),
            ).ranked
        ),
        "fused, second stage off": shipped(unstaged),
        "fused + second stage (best unit, top 30)": shipped(staged),
        "search(): one hit per translation family": one_per_family(settings),
    }


Cells = dict[str, list[float]]  # "set | table | row" -> metric values


def table(title: str, rows: list[tuple[str, np.ndarray, str]], cells: Cells, before: Cells | None) -> None:
    print(f"\n### {title}\n")
    print("| ranking | " + " | ".join(METRICS) + " | cross-lingual hit@5 |")
    print("|---|" + "---|" * (len(METRICS) + 1))
    for name, values, extra in rows:
        key = f"{title} | {name}"
        cells[key] = [float(v) for v in values]
        old = (before or {}).get(key)
        shown = [f"{v:.3f}" + (f" ({v - o:+.3f})" if old else "") for v, o in zip(values, old or values, strict=True)]
        print(f"| {name} | " + " | ".join(shown) + f" | {extra} |")


def facet_table(
    title: str,
    per_query: dict[str, list[np.ndarray]],
    queries: list[Query],
    facet: str,
    cells: Cells,
    before: Cells | None,
) -> None:
    """nDCG@10 of every ranking, one column per language (or kind)."""
    values = sorted({getattr(q, facet) for q in queries})
    counts = {v: sum(1 for q in queries if getattr(q, facet) == v) for v in values}
    print(f"\n### {title}: nDCG@10 by {facet}\n")
    print("| ranking | " + " | ".join(f"{v} (n={counts[v]})" for v in values) + " |")
    print("|---|" + "---|" * len(values))
    for name, got in per_query.items():
        row = []
        for v in values:
            mean = float(np.mean([s[0] for s, q in zip(got, queries, strict=True) if getattr(q, facet) == v]))
            key = f"{title} | {facet}={v} | {name}"
            cells[key] = [mean]
            old = (before or {}).get(key)
            row.append(f"{mean:.3f}" + (f" ({mean - old[0]:+.3f})" if old else ""))
        print(f"| {name} | " + " | ".join(row) + " |")


@dataclass
class EvalSet:
    """One set of questions over one indexed vault."""

    name: str
    source: str
    db: sqlite3.Connection
    settings: Settings
    queries: list[Query]


# The round now choosing (docs/retrieval.md): a blind set read first in an earlier round chooses from then on.
ROUND = 22
# The sets any weight or threshold may be chosen on (the sweeps use only these): the public set, the choosing
# halves, and every blind set already read once for a report (vault-fresh in round six, having decided round
# four's variant; each later one from the round after the one that read it).
CHOOSING = (
    "public",
    "convo-choose",
    "vault-choose",
    *(name for name, first_read in BLIND_ROUNDS.items() if first_read < ROUND),
)


# "set" -> "ranking" -> query id -> [language, nDCG@10, MRR@10, hit@1, hit@5]
PerQuery = dict[str, dict[str, dict[str, list[object]]]]


def evaluate(sets: list[EvalSet], embedder, before: Cells | None = None, scored: PerQuery | None = None) -> Cells:  # type: ignore[no-untyped-def]
    """Print the tables for every set; returns every cell printed. ``scored``, when given, receives every
    query's scores under every ranking (for tables the bench does not print, e.g. MRR@10 per language)."""
    cells: Cells = {}
    for each in sets:
        db, settings, queries = each.db, each.settings, each.queries
        by_name = rankers(db, settings, embedder)
        rankings = [rank_legs(db, settings, embedder, q.text, "body", time.monotonic() + 60) for q in queries]
        rows = []
        per_query: dict[str, list[np.ndarray]] = {}
        for name, ranker in by_name.items():
            got = [scores(ranker(ranking, q), q.relevant) for ranking, q in zip(rankings, queries, strict=True)]
            per_query[name] = got
            if scored is not None:
                scored.setdefault(each.name, {})[name] = {
                    q.id: [q.lang, *(float(v) for v in s)] for s, q in zip(got, queries, strict=True)
                }
            cross = [s[3] for s, q in zip(got, queries, strict=True) if q.kind == "crosslingual"]
            rows.append((name, np.mean(got, axis=0), f"{int(sum(cross))}/{len(cross)}"))
        role = "chooses" if each.name in CHOOSING else "reports only"
        table(f"{each.name}: {len(queries)} answerable queries ({each.source}; {role})", rows, cells, before)
        for facet in ("lang", "kind"):
            facet_table(each.name, per_query, queries, facet, cells, before)
        walked = [q.id for q in queries if should_run(settings, q.text, None)]
        print(f"\nPageRank (auto) ran on {len(walked)} of {len(queries)} queries: {', '.join(walked) or 'none'}")
    return cells


def _indexed(vault: Path, index: Path, embedder, reembed: bool) -> tuple[sqlite3.Connection, Settings]:  # type: ignore[no-untyped-def]
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    started = time.perf_counter()
    counts = embed_pending(db, embedder, reembed=reembed)
    took = time.perf_counter() - started
    print(f"{vault.name}: embedded {counts.chunks} chunks, {counts.summaries} summaries in {took:.1f}s")
    return db, settings


def load_sets(  # type: ignore[no-untyped-def]
    wanted: list[str], vault: Path, index: Path, convo_index: Path, embedder, reembed: bool = False
) -> list[EvalSet]:
    """The sets named in ``wanted``, each over its indexed vault (indexed and embedded incrementally first)."""
    sets: list[EvalSet] = []
    if any(name in QUERY_FILES or name in VAULT_SETS or name in WHOLE_SETS for name in wanted):
        db, settings = _indexed(vault, index, embedder, reembed)
        for name, path in QUERY_FILES.items():
            if name in wanted:
                sets.append(EvalSet(name, path.name, db, settings, load_queries(path, vault_pages(db))))
        for name, split in VAULT_SETS.items():
            if name in wanted:
                queries = load_queries(VAULT_FILE, vault_pages(db), split)
                sets.append(EvalSet(name, f"{VAULT_FILE.name} {split}", db, settings, queries))
        for name, path in WHOLE_SETS.items():
            if name in wanted:
                sets.append(EvalSet(name, path.name, db, settings, load_queries(path, vault_pages(db))))
    if any(name in CONVO_SETS for name in wanted):
        db, settings = _indexed(CONVO_VAULT, convo_index, embedder, reembed)
        for name, split in CONVO_SETS.items():
            if name in wanted:
                queries = load_queries(CONVO_FILE, vault_pages(db), split)
                sets.append(EvalSet(name, f"{CONVO_FILE.name} {split}", db, settings, queries))
    return sets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    parser.add_argument("--index", type=Path, default=ROOT / ".cache" / "bench" / "eval-index.db")
    parser.add_argument("--convo-index", type=Path, default=ROOT / ".cache" / "bench" / "convo-index.db")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--reembed", action="store_true", help="the model changed: embed everything again")
    parser.add_argument(
        "--sets",
        default=DEFAULT_SETS,
        help="comma-separated",
    )
    parser.add_argument("--save", type=Path, help="write every cell to this JSON file")
    parser.add_argument("--compare", type=Path, help="show each cell's change against a file --save wrote")
    parser.add_argument("--per-query", type=Path, help="write every query's scores under every ranking (JSON)")
    parser.add_argument("--sweep", action="store_true", help="also print the leg-weight grid (choosing sets)")
    parser.add_argument("--sweep-rerank", action="store_true", help="also print the second stage's weight grid")
    parser.add_argument("--families", action="store_true", help="also print the translation-family split (public)")
    args = parser.parse_args(argv)
    wanted = args.sets.split(",")
    embedder = OnnxEmbedder(args.embed_model, threads=int(os.environ.get("EMBED_THREADS", "2")))
    sets = load_sets(wanted, args.vault, args.index, args.convo_index, embedder, args.reembed)
    before = json.loads(args.compare.read_text()) if args.compare else None
    scored: PerQuery = {}
    cells = evaluate(sets, embedder, before, scored)
    if args.per_query:
        args.per_query.write_text(json.dumps(scored, indent=1))
    if args.save:
        args.save.write_text(json.dumps(cells, indent=1))
    from bench import retrieval_grids  # the diagnostics import this module's names; only they need them

    if args.sweep:
        retrieval_grids.sweep(sets, embedder)
    if args.sweep_rerank:
        retrieval_grids.sweep_rerank(sets, embedder)
    if args.families:
        for each in sets:
            if each.name == "public":
                retrieval_grids.family_split(each)
    return 0


if __name__ == "__main__":
    sys.exit(main())
