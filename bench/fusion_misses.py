"""Why the right page is not first under the shipped ranking: round sixteen's miss analysis (issue 32).

    python bench/fusion_misses.py --index EVAL.db --convo-index CONVO.db [--sets a,b] [--out MISSES.json]

For each question of ``--sets`` (default: ``retrieval.CHOOSING``, never a report-only set) whose first right page
is not first, compares that page with the page ranked first in every leg and in the convex ranking of the wording
and unit legs (``fusion.convex_pages``), and files the miss under one structural cause (``cause``), first match
in its order. Prints the counts per cause and the tallies that bear on the round's variant families.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path

from bench.built_index import built_index
from bench.page_evidence import Evidence, evidence, page_scores
from bench.retrieval import CHOOSING, ROOT, load_sets, shipped_order
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.paths import folder_language
from sentinel.search import fusion
from sentinel.search import results as r
from sentinel.settings import SearchSettings
from tests.support.eval_data import eval_vault_path


def _normalised(found: dict[str, float]) -> dict[str, float]:
    top = max(found.values(), default=0.0)
    return {p: max(0.0, s / top) for p, s in found.items()} if top > 0 else dict.fromkeys(found, 1.0)


def _at(ranked: list[str], page: str) -> int | None:
    return ranked.index(page) + 1 if page in ranked else None


def _same_page(a: str, b: str) -> bool:
    """Two copies of one page under two language folders (``en/a.md``, ``de/a.md``)."""
    return a.split("/", 1)[-1] == b.split("/", 1)[-1] and a != b


def miss(search: SearchSettings, e: Evidence, ranked: list[str]) -> dict[str, object] | None:
    q, ranking = e.query, e.ranking
    right = next((p for p in ranked if p in q.relevant), None)
    if right is not None and ranked.index(right) == 0:
        return None
    top = ranked[0]
    right = right or sorted(q.relevant)[0]
    convex = fusion.convex_pages(search, ranking.scores or {}, ranking.windows or {})
    sem = _normalised(page_scores(e.semantic, e.page_of))
    prior = {p: n**-search.window_prior for p, n in (ranking.windows or {}).items()}
    lex = {p: s * prior.get(p, 1.0) for p, s in _normalised(page_scores(e.lexical, e.page_of)).items()}
    best, next_best = page_scores(e.semantic, e.page_of), page_scores(e.semantic, e.page_of, 1)
    second = _normalised({p: s + next_best[p] for p, s in best.items()})  # best + second best, over the leg's top
    summ = _normalised(e.summaries)
    legs = {name: ranking.legs.get(name, []) for name in (r.LEG_LEXICAL, r.LEG_CHUNKS, r.LEG_SUMMARIES)}
    row: dict[str, object] = {"id": q.id, "lang": q.lang, "query": q.text, "right": right, "top": top}
    row["at"] = {
        "final": [_at(ranked, right), 1],
        "convex": [_at(convex, right), _at(convex, top)],
        **{leg: [_at(pages, right), _at(pages, top)] for leg, pages in legs.items()},
        "passages": [_at(ranking.passages or [], right), _at(ranking.passages or [], top)],
    }
    row["semantic"] = [round(sem.get(right, 0.0), 3), round(sem.get(top, 0.0), 3)]
    row["lexical"] = [round(lex.get(right, 0.0), 3), round(lex.get(top, 0.0), 3)]
    row["two_units"] = [round(second.get(right, 0.0), 3), round(second.get(top, 0.0), 3)]
    row["summary"] = [round(summ.get(right, 0.0), 3), round(summ.get(top, 0.0), 3)]
    row["top_language"] = folder_language(top) or ""
    row["top_copy_of_right"] = any(_same_page(top, p) for p in q.relevant)
    row["cause"] = cause(row, right in convex)
    return row


def cause(row: dict[str, object], found: bool) -> str:
    at, sem, lex = row["at"], row["semantic"], row["lexical"]
    assert isinstance(at, dict) and isinstance(sem, list) and isinstance(lex, list)
    if not found:
        return "not found by the wording or unit leg"
    convex_right, convex_top = at["convex"]
    if convex_top is None or convex_right < convex_top:
        return "convex ranks it above, the other votes turn it"
    if row["top_copy_of_right"]:
        return "a copy of it in another language comes first"
    if row["top_language"] and row["top_language"] != row["lang"]:
        return "a page in another language comes first"
    if lex[1] > lex[0] and sem[1] <= sem[0]:
        return "the wording leg carries the page above"
    if sem[1] > sem[0] and lex[1] <= lex[0]:
        return "the unit leg carries the page above"
    return "both legs score the page above higher"


def index_arguments(parser: argparse.ArgumentParser) -> None:
    """The indexes and model a miss bench reads (this one and bench/miss_defects.py), and where its rows go."""
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    parser.add_argument("--index", type=built_index, required=True)
    parser.add_argument("--convo-index", type=built_index, required=True)
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--out", type=Path)


def choosing_embedder(parser: argparse.ArgumentParser, args: argparse.Namespace, names: list[str]) -> OnnxEmbedder:
    """The embedder for ``names``, refused unless every one is a choosing set: a miss read on a report set would
    choose with it."""
    if not set(names) <= set(CHOOSING):
        parser.error("the misses are read on choosing sets only")
    return OnnxEmbedder(args.embed_model, threads=int(os.environ.get("EMBED_THREADS", "2")))


def tally_and_save(rows: list[dict[str, object]], key: str, out: Path | None) -> None:
    """One table row per value of ``key``, most first; the rows as JSON to ``out`` when given."""
    for name, n in Counter(str(row[key]) for row in rows).most_common():
        print(f"| {name} | {n} |")
    if out:
        out.write_text(json.dumps(rows, ensure_ascii=False, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    index_arguments(parser)
    parser.add_argument("--sets", default=",".join(CHOOSING))
    args = parser.parse_args(argv)
    names = args.sets.split(",")
    embedder = choosing_embedder(parser, args, names)
    rows, asked = [], 0
    for each in load_sets(names, args.vault, args.index, args.convo_index, embedder):
        for q in each.queries:
            asked += 1
            e = evidence(each.db, each.settings, embedder, q)
            found = miss(each.settings.search, e, shipped_order(each.db, each.settings, e.ranking, q.text))
            if found is not None:
                rows.append({"set": each.name, **found})
    print(f"{len(rows)} of {asked} questions have their right page below first")
    tally_and_save(rows, "cause", args.out)
    tallies = {
        "right page's best + second unit beats the top's (semantic)": lambda m: m["two_units"][0] > m["two_units"][1],
        "summary leg scores the right page higher": lambda m: m["summary"][0] > m["summary"][1],
        "right page in the top 5 of the final ranking": lambda m: (m["at"]["final"][0] or 99) <= 5,
        "right page 2nd in the convex ranking": lambda m: m["at"]["convex"][0] == 2,
    }
    for name, test in tallies.items():
        print(f"| {name} | {sum(bool(test(m)) for m in rows)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
