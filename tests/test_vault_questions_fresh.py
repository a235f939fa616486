"""The vault questions written blind to decide one thing each: round five's (bench/vault_questions_fresh.tsv, set
``vault-fresh``: 80 questions, 20 a language; it chooses since round six), round six's
(bench/vault_questions_fresh2.tsv, ``vault-fresh2``: 60, 15 a language; it chooses since round seven), round
seven's (bench/vault_questions_fresh3.tsv, ``vault-fresh3``: 60, 15 a language; chooses since round eight),
round eight's (bench/vault_questions_fresh4.tsv, ``vault-fresh4``: 60, 15 a language; chooses since round nine),
round nine's (bench/vault_questions_fresh5.tsv, ``vault-fresh5``: 60, 15 a language; chooses since round ten),
round ten's (bench/vault_questions_fresh6.tsv, ``vault-fresh6``: 60, 15 a language; reported round ten once, chooses
since round eleven), round eleven's (bench/vault_questions_fresh7.tsv, ``vault-fresh7``: 60, 15 a language;
reported round eleven once, chooses since round twelve), round twelve's (bench/vault_questions_fresh8.tsv,
``vault-fresh8``: 60, 15 a language; reported round twelve once, chooses since round thirteen) and round thirteen's
(bench/vault_questions_fresh9.tsv, ``vault-fresh9``: 60, 15 a language; reported round thirteen once, chooses since
round fourteen) and round fourteen's (bench/vault_questions_fresh10.tsv, ``vault-fresh10``: 60, 15 a language;
reported round fourteen once, chooses since round fifteen) and round fifteen's (bench/vault_questions_fresh11.tsv,
``vault-fresh11``: 60, 15 a language; reports round fifteen once) and round sixteen's
(bench/vault_questions_fresh12.tsv, ``vault-fresh12``: 60, 15 a language; reports round sixteen once) and round
seventeen's (bench/vault_questions_fresh13.tsv, ``vault-fresh13``: 60, 15 a language; reports round seventeen once)
and round eighteen's (bench/vault_questions_fresh14.tsv, ``vault-fresh14``: 60, 15 a language; reports round eighteen
once) and round nineteen's (bench/vault_questions_fresh15.tsv, ``vault-fresh15``: 60, 15 a language; reports round
nineteen once) and round twenty's (bench/vault_questions_fresh16.tsv, ``vault-fresh16``: 60, 15 a language; reports
round twenty once) and round twenty-one's (bench/vault_questions_fresh17.tsv, ``vault-fresh17``: 60, 15 a language;
reports round twenty-one once) and round twenty-two's (bench/vault_questions_fresh18.tsv, ``vault-fresh18``: 60, 15 a
language; reports round twenty-two once).
The sets and the round that read each first are one table, ``bench.retrieval.BLIND_ROUNDS``. Each question is answered
in its own language by one page of the eval vault. ``relevant`` is every copy of that page (the pages sharing its
Publish ``permalink``) whose text states the fact, checked here by one pattern per question
(tests/support/vault_question_states.py, vault_question_states_more.py from vault-fresh6 on,
vault_question_states_late.py from vault-fresh11 on, vault_question_states_later.py from vault-fresh15 on and
vault_question_states_latest.py from vault-fresh17 on): every labelled page matches it, and no unlabelled copy of the
page does.
Nothing here ranks: the report-only sets stay blind."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bench.retrieval import (
    BLIND_ROUNDS,
    CHOOSING,
    DEFAULT_SETS,
    QUERY_FILES,
    ROUND,
    VAULT_FILE,
    WHOLE_SETS,
    load_queries,
)
from tests.support.eval_data import require_eval_vault
from tests.support.vault_question_states import STATES, STATES2, STATES3, STATES4, STATES5
from tests.support.vault_question_states_late import STATES11, STATES12, STATES13, STATES14
from tests.support.vault_question_states_later import STATES15, STATES16
from tests.support.vault_question_states_latest import STATES17, STATES18
from tests.support.vault_question_states_more import STATES6, STATES7, STATES8, STATES9, STATES10

LANGUAGES = ("en", "de", "es", "tr")
PERMALINK = re.compile(r"^permalink:\s*(\S+)", re.MULTILINE)

# set name -> (its patterns, questions a language)
STATES_OF = {
    "vault-fresh": (STATES, 20),
    "vault-fresh2": (STATES2, 15),
    "vault-fresh3": (STATES3, 15),
    "vault-fresh4": (STATES4, 15),
    "vault-fresh5": (STATES5, 15),
    "vault-fresh6": (STATES6, 15),
    "vault-fresh7": (STATES7, 15),
    "vault-fresh8": (STATES8, 15),
    "vault-fresh9": (STATES9, 15),
    "vault-fresh10": (STATES10, 15),
    "vault-fresh11": (STATES11, 15),
    "vault-fresh12": (STATES12, 15),
    "vault-fresh13": (STATES13, 15),
    "vault-fresh14": (STATES14, 15),
    "vault-fresh15": (STATES15, 15),
    "vault-fresh16": (STATES16, 15),
    "vault-fresh17": (STATES17, 15),
    "vault-fresh18": (STATES18, 15),
}
SETS = {WHOLE_SETS[name]: patterns for name, patterns in STATES_OF.items()}
WHOLE = pytest.mark.parametrize("questions", list(SETS), ids=list(STATES_OF))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _relevant(row: dict[str, str]) -> list[str]:
    return [p.strip() for p in row["relevant"].split(";")]


def _copies(vault: Path) -> dict[str, list[str]]:
    """Every page of the eval vault -> the pages that publish at its permalink (itself alone without one)."""
    link = {}
    for page in vault.rglob("*.md"):
        found = PERMALINK.search(page.read_text(encoding="utf-8"))
        link[page.relative_to(vault).as_posix()] = found.group(1) if found else None
    by_link: dict[str, list[str]] = {}
    for path, name in link.items():
        if name:
            by_link.setdefault(name, []).append(path)
    return {path: sorted(by_link[name]) if name else [path] for path, name in link.items()}


@WHOLE
def test_the_same_number_of_questions_a_language_each_with_its_pattern(questions: Path) -> None:
    states, each = SETS[questions]
    rows = _rows(questions)
    assert len({row["id"] for row in rows}) == len(rows) == each * len(LANGUAGES)
    assert all(sum(row["lang"] == lang for row in rows) == each for lang in LANGUAGES)
    assert {row["kind"] for row in rows} <= {"fact", "howto"}
    assert set(states) == {row["id"] for row in rows}


@WHOLE
def test_each_question_is_answered_by_copies_of_one_page_in_its_own_language_among_them(questions: Path) -> None:
    vault = require_eval_vault()
    copies = _copies(vault)
    wrong = []
    for row in _rows(questions):
        relevant = _relevant(row)
        if any(path not in copies for path in relevant):
            wrong.append((row["id"], "missing page"))
        elif len({tuple(copies[path]) for path in relevant}) != 1:
            wrong.append((row["id"], "more than one page"))
        elif not any(path.startswith(row["lang"] + "/") for path in relevant):
            wrong.append((row["id"], "no copy in its language"))
    assert not wrong


@WHOLE
def test_every_copy_that_states_the_answer_is_labelled_and_no_other(questions: Path) -> None:
    vault = require_eval_vault()
    copies = _copies(vault)
    patterns = SETS[questions][0]
    wrong = []
    for row in _rows(questions):
        relevant = set(_relevant(row))
        family = copies[next(iter(relevant))]
        states = {p for p in family if re.search(patterns[row["id"]], (vault / p).read_text(encoding="utf-8"))}
        if states != relevant:
            wrong.append((row["id"], sorted(states ^ relevant)))
    assert not wrong


# that no question names a labelled page by its title: tests/test_vault_questions.py, for both sets


@WHOLE
def test_no_question_is_one_of_the_other_sets(questions: Path) -> None:
    files = [*QUERY_FILES.values(), VAULT_FILE, *(path for path in SETS if path != questions)]
    others = {row["query"].casefold() for path in files if path.is_file() for row in _rows(path)}
    assert not others & {row["query"].casefold() for row in _rows(questions)}


def test_a_blind_set_chooses_only_after_the_round_that_read_it() -> None:
    # each set was read once to report the round that took it in; from the next round on it chooses, and a set
    # taken in this round reports only (docs/retrieval.md)
    for name, first_read in BLIND_ROUNDS.items():
        assert (name in CHOOSING) == (first_read < ROUND), name
    assert "vault-fresh10" in CHOOSING  # read once for round fourteen's report, chooses from round fifteen
    assert not {"heldout", "vault-report", "convo-report"} & set(CHOOSING)


def test_a_run_without_sets_ranks_every_whole_set() -> None:
    assert set(WHOLE_SETS) <= set(DEFAULT_SETS.split(","))
    assert set(SETS) == set(WHOLE_SETS.values())
    assert all(path.is_file() for path in WHOLE_SETS.values())
    assert WHOLE_SETS["vault-fresh6"].name == "vault_questions_fresh6.tsv"


@WHOLE
def test_the_set_is_read_whole_as_labelled(questions: Path) -> None:
    rows = {row["id"]: row for row in _rows(questions)}
    queries = load_queries(questions)
    assert len(queries) == len(rows)
    for q in queries:
        assert q.relevant == set(_relevant(rows[q.id]))
