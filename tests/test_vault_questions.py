"""The fresh vault questions (bench/vault_questions.tsv): every labelled page exists in the eval vault, each
question has its answer in its own language unless it is labelled cross-lingual, no question repeats a labelled
page's title or another set's question, and the two halves are split by the question's sha256 alone."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bench.retrieval import (
    QUERY_FILES,
    VAULT_FILE,
    WHOLE_SETS,
    load_queries,
    vault_split,
)
from tests.support.eval_data import require_eval_vault
from tests.support.vault_question_states_more import FRESH8_FILE

LANGUAGES = {"en", "de", "es", "tr"}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _relevant(row: dict[str, str]) -> list[str]:
    return [p.strip() for p in row["relevant"].split(";")]


def test_every_labelled_page_is_a_page_of_the_eval_vault() -> None:
    vault = require_eval_vault()
    labelled = [(row["id"], path) for row in _rows(VAULT_FILE) for path in _relevant(row)]
    missing = [(qid, path) for qid, path in labelled if not (vault / path).is_file()]
    assert not missing


def test_each_question_is_answered_in_its_own_language_unless_labelled_cross_lingual() -> None:
    wrong = []
    for row in _rows(VAULT_FILE):
        own = any(path.startswith(row["lang"] + "/") for path in _relevant(row))
        if own == (row["kind"] == "crosslingual"):
            wrong.append(row["id"])
    assert not wrong


def test_ids_are_unique_and_languages_known() -> None:
    rows = _rows(VAULT_FILE)
    assert len({row["id"] for row in rows}) == len(rows)
    assert {row["lang"] for row in rows} == LANGUAGES


@pytest.mark.parametrize(
    "questions",
    [VAULT_FILE, *WHOLE_SETS.values(), FRESH8_FILE],
    ids=["vault", *WHOLE_SETS, "vault-fresh8"],
)
def test_no_question_names_a_labelled_page_by_its_title(questions: Path) -> None:
    copied = []
    for row in _rows(questions):
        for path in _relevant(row):
            title = Path(path).stem.casefold()
            if re.search(rf"(?<!\w){re.escape(title)}(?!\w)", row["query"].casefold()):
                copied.append((row["id"], title))
    assert not copied


def test_no_question_is_one_of_the_other_sets() -> None:
    others = {row["query"].casefold() for path in QUERY_FILES.values() if path.is_file() for row in _rows(path)}
    assert not others & {row["query"].casefold() for row in _rows(VAULT_FILE)}


def test_the_halves_are_split_by_the_question_alone() -> None:
    choose = load_queries(VAULT_FILE, split="choose")
    report = load_queries(VAULT_FILE, split="report")
    assert {q.id for q in choose}.isdisjoint(q.id for q in report)
    assert len(choose) + len(report) == len(_rows(VAULT_FILE))
    for half in (choose, report):
        assert {q.lang for q in half} == LANGUAGES  # each half asks in every language
        assert len(half) >= 0.4 * len(_rows(VAULT_FILE))
    assert all(vault_split(q.text) == "choose" for q in choose)
    assert {vault_split(f"question {i}") for i in range(8)} == {"choose", "report"}


@pytest.mark.parametrize("split", ["choose", "report"])
def test_a_half_is_read_with_its_relevant_pages_as_labelled(split: str) -> None:
    rows = {row["id"]: row for row in _rows(VAULT_FILE)}
    for q in load_queries(VAULT_FILE, split=split):
        assert q.relevant == set(_relevant(rows[q.id]))
