"""The questions bench/unanswered.py asks: the unanswerable set's halves, the browser turns the vault does not
answer, and the answerable questions of the choosing and reporting sets, each with the pages that answer it."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from bench import retrieval
from sentinel.answer.followup import asked

ROOT = Path(__file__).resolve().parents[1]
UNANSWERABLE = ROOT / "bench" / "unanswerable_set.tsv"
BROWSER = (ROOT / "bench" / "browser_turns.tsv", ROOT / "bench" / "browser_turns_more.tsv")
UNHELD = ROOT / "bench" / "unheld_set.tsv"  # stop 54 (h54e): lowercase things, typo'd known words; choosing only


@dataclass(frozen=True)
class Question:
    set: str
    lang: str
    text: str
    pages: frozenset[str]  # paths (titles for the browser turns); empty: the vault does not answer it
    by_title: bool = False


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def unanswerable(split: str) -> list[Question]:
    return [
        Question(f"unanswerable-{split}", r["lang"], r["question"], frozenset())
        for r in _rows(UNANSWERABLE)
        if r["split"] == split
    ]


def answerable_choosing(pages_present: set[str]) -> list[Question]:
    found = [
        Question("answers", r["id"][:2], r["question"], frozenset(r["pages"].split(";")))
        for r in _rows(ROOT / "bench" / "answers_set.tsv")
    ]
    firsts: dict[str, Question] = {}
    for r in _rows(ROOT / "bench" / "followups_set.tsv"):
        text = r["earlier"] if r["kind"] == "follow" else r["turn"]
        firsts.setdefault(text, Question("followups-first", r["lang"], text, frozenset(r["pages"].split(";"))))
    found += firsts.values()
    for path in BROWSER:
        earlier: dict[str, list[str]] = {}
        for r in _rows(path):
            turns = earlier.setdefault(r["chat"], [])
            turns.append(r["turn"])
            page = r["page"].strip()
            if page and page != "-" and not asked(turns).earlier and page in titles_present(pages_present):
                found.append(Question("browser-first", r["chat"][:2], r["turn"], frozenset({page}), by_title=True))
    for name in retrieval.CHOOSING:
        found += _retrieval_set(name, pages_present)
    return found + [q for q in unheld() if q.pages]


def unheld() -> list[Question]:
    """bench/unheld_set.tsv (stop 54, written before any run): the sixth browser file's row 6 ("con alexa") and
    lowercase things no page names in running clauses ("-"), and typo'd known words the vault answers."""
    return [
        Question("unheld", r["lang"], r["question"], frozenset() if r["pages"] == "-" else frozenset({r["pages"]}))
        for r in _rows(UNHELD)
    ]


def answerable_reporting(pages_present: set[str]) -> list[Question]:
    return _retrieval_set("vault-report", pages_present) + _retrieval_set("heldout", pages_present)


def browser_unanswerable() -> list[Question]:
    """The browser turns labelled ``-`` (stop 49's rows 1 and 10: they showed the trap, so they choose)."""
    return [
        Question("browser-none", r["chat"][:2], r["turn"], frozenset())
        for path in BROWSER
        for r in _rows(path)
        if r["page"].strip() == "-"
    ]


def heldout_unanswerable() -> list[Question]:
    return [
        Question("heldout-none", r["lang"], r["query"], frozenset())
        for r in _rows(retrieval.QUERY_FILES["heldout"])
        if r["relevant"].strip() == "-"
    ]


_TITLES: dict[int, set[str]] = {}


def titles_present(pages: set[str]) -> set[str]:
    return _TITLES.setdefault(id(pages), {Path(p).stem for p in pages})


def _retrieval_set(name: str, present: set[str]) -> list[Question]:
    if name in retrieval.QUERY_FILES:
        queries = retrieval.load_queries(retrieval.QUERY_FILES[name], present)
    elif name in retrieval.VAULT_SETS:
        queries = retrieval.load_queries(retrieval.VAULT_FILE, present, retrieval.VAULT_SETS[name])
    elif name in retrieval.WHOLE_SETS:
        queries = retrieval.load_queries(retrieval.WHOLE_SETS[name], present)
    else:
        return []  # the conversation sets have their own vault
    return [Question(name, q.lang, q.text, frozenset(q.relevant)) for q in queries]
