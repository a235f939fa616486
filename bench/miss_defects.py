"""Round eighteen (issue 32; docs/retrieval.md): the misses read for defects, not weights.

    python bench/miss_defects.py --index EVAL.db --convo-index CONVO.db --misses MISSES.json [--out ROWS.json]

``--misses`` is what ``bench/fusion_misses.py --out`` wrote for the choosing sets (it refuses a report-only set).
For each miss this reads what the wording leg matched on the right page and on the page ranked first: the question's
terms as the leg asks them (and those no chunk holds), each page's best unit in the wording leg, the terms that unit
holds only in its markup (link targets, image and embed names, HTML: words a reader does not see, ``plain_text``),
the terms the right page holds only in its aliases, and the right page's units. It files nothing by itself: the
cause of each miss is read from these by a person (docs/retrieval.md, round eighteen's table).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

from bench.fusion_misses import choosing_embedder, index_arguments, tally_and_save
from bench.retrieval import load_sets
from sentinel.index.fold import fold
from sentinel.paths import folder_language
from sentinel.search.fts_query import WORD
from sentinel.search.lexical import lexical_scored, lexical_terms
from sentinel.search.view import chunk_count
from sentinel.vault.plain import plain_text


def _tokens(text: str, language: str) -> set[str]:
    return set(WORD.findall(fold(text, language)))


def unit_terms(row: dict[str, str], terms: list[str]) -> dict[str, list[str]]:
    """Of ``terms``, those a unit holds in its text a reader sees, only in its markup, and in its trail."""
    raw, seen = _tokens(row["text"], row["language"]), _tokens(plain_text(row["text"]), row["language"])
    trail = _tokens(row["trail"], row["language"])
    return {
        "seen": [t for t in terms if t in seen],
        "markup_only": [t for t in terms if t in raw and t not in seen and t not in trail],
        "trail": [t for t in terms if t in trail],
    }


def page_read(
    db: sqlite3.Connection, page: str, terms: list[str], lexical: dict[int, float], unheld: list[str]
) -> dict[str, object]:
    rows = db.execute("SELECT id, text, trail, language FROM chunks WHERE path = ? ORDER BY ordinal", (page,))
    units = [dict(zip(("id", "text", "trail", "language"), row, strict=True)) for row in rows]
    best = max((u for u in units if u["id"] in lexical), key=lambda u: lexical[u["id"]], default=None)
    held = set().union(*(_tokens(u["text"], u["language"]) | _tokens(u["trail"], u["language"]) for u in units))
    language = units[0]["language"] if units else ""
    aliases = [str(a[0]) for a in db.execute("SELECT alias FROM aliases WHERE path = ?", (page,))]
    alias_terms = set().union(*(_tokens(a, language) for a in aliases)) if aliases else set()
    return {
        "units": len(units),
        "aliases": aliases,
        "alias_only_terms": [t for t in terms if t in alias_terms and t not in held],
        "best_lexical_unit": None if best is None else {**unit_terms(best, terms), "text": best["text"][:600]},
        # a question word no chunk holds whose first letters open a word this page holds (another form of it)
        "other_form_held": [t for t in unheld if len(t) >= 4 and any(h.startswith(t[:PREFIX]) for h in held)],
        "markup_only_on_page": [
            t for t in terms if t in held and not any(t in _tokens(plain_text(u["text"]), language) for u in units)
        ],
    }


PREFIX = 4  # letters a question word and a page's word share to be read as two forms of one word


def defect(m: dict[str, object]) -> str:
    """The first cause that fits one miss, the defects first (docs/retrieval.md, round eighteen's order)."""
    right, top = m["right_page"], m["top_page"]
    assert isinstance(right, dict) and isinstance(top, dict)
    relevant_languages = {folder_language(p) for p in m["relevant"]}  # type: ignore[attr-defined]
    if m["lang"] not in relevant_languages and "" not in relevant_languages:
        return "no copy of the right page in the question's language"
    if m["top_language"] and m["top_language"] != m["lang"]:
        return "a page in another language comes first"
    if (top["best_lexical_unit"] or {}).get("markup_only"):
        return "markup a reader does not see carries the page above (wording leg)"
    if right["alias_only_terms"]:
        return "the right page holds a question word only in an alias"
    if right["other_form_held"]:
        return "a question word in a form the fold does not reach (the page holds another form)"
    return f"no defect found: {m['cause']}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    index_arguments(parser)
    parser.add_argument("--misses", type=Path, required=True)
    args = parser.parse_args(argv)
    misses = json.loads(args.misses.read_text())
    names = sorted({m["set"] for m in misses})
    embedder = choosing_embedder(parser, args, names)
    sets = load_sets(names, args.vault, args.index, args.convo_index, embedder)
    dbs = {each.name: each.db for each in sets}
    relevant = {(each.name, q.id): q.relevant for each in sets for q in each.queries}
    out = []
    for m in misses:
        db = dbs[m["set"]]
        terms = lexical_terms(db, m["query"], chunk_count(db))
        lexical = lexical_scored(db, terms, 300)
        read = {"unheld": [t for t in terms.words if not terms.frequencies.get(t)], "terms": terms.words}
        unheld = read["unheld"]
        read["right_page"] = page_read(db, m["right"], terms.words, lexical, unheld)
        read["top_page"] = page_read(db, m["top"], terms.words, lexical, unheld)
        row = {**m, **read, "relevant": sorted(relevant[(m["set"], m["id"])])}
        row["defect"] = defect(row)
        out.append(row)
    tally_and_save(out, "defect", args.out)
    markup = sum(1 for m in out if (m["top_page"]["best_lexical_unit"] or {}).get("markup_only"))
    alias = sum(1 for m in out if m["right_page"]["alias_only_terms"])
    unheld = sum(1 for m in out if m["unheld"])
    print(f"{len(out)} misses: the top page's best wording unit matches a term only in its markup in {markup}")
    print(f"the right page holds a question term only in an alias in {alias}; a term no chunk holds in {unheld}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
