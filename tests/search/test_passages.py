"""The passage vote (issue 32, round seven): each unit leg ranks a page by its own best unit, which may be two
different units of one page; the passage ranking fuses the legs unit by unit, so a page whose one passage both
legs rank high comes up where each leg alone put another page first (``SearchSettings.weight_passages``)."""

from __future__ import annotations

import time

from sentinel.search import fusion
from sentinel.search import results as r
from sentinel.search.ladder import rank_legs
from sentinel.settings import SearchSettings
from tests.support.vault import Indexed

# Each leg puts another page first; "answer" is second in both, its one passage first when they are fused unit by
# unit (the wording leg's best unit of "wording" and the meaning leg's best unit of "meaning" are not passages
# the other leg found).
LEGS = {
    r.LEG_LEXICAL: ["wording", "answer", "meaning"],
    r.LEG_CHUNKS: ["meaning", "answer", "wording"],
    r.LEG_SUMMARIES: ["wording", "meaning", "answer"],
}
PASSAGES = ["answer", "wording", "meaning"]


def _first(search: SearchSettings, passages: list[str]) -> str:
    return next(iter(fusion.fuse_legs(search, LEGS, passages=passages)))


def test_a_page_whose_one_passage_both_legs_rank_high_comes_first() -> None:
    search = SearchSettings()
    assert search.weight_passages > 0
    assert _first(search, PASSAGES) == "answer"
    # the same legs without the passage vote: a page one leg put first wins
    assert _first(search, []) != "answer"
    assert _first(search.model_copy(update={"weight_passages": 0.0}), PASSAGES) != "answer"


def test_a_page_of_many_windows_votes_less_in_the_passage_ranking_too() -> None:
    search = SearchSettings()
    windows = {"answer": 40}

    def vote(passages: list[str]) -> float:
        return fusion.fuse_legs(search, LEGS, windows=windows, passages=passages)["answer"]

    # the passage ranking puts "answer" first: its vote is the weight, shrunk by the window prior as the wording
    # leg's is (40 windows hold some word of almost any question)
    shrunk = search.weight_passages * 40**-search.window_prior / (search.rrf_k + 1)
    assert abs(vote(PASSAGES) - vote([]) - shrunk) < 1e-12
    assert shrunk < search.weight_passages / (search.rrf_k + 1)


def test_passages_follow_the_unit_by_unit_fusion_and_the_rungs_pages(eval_index: Indexed, e5) -> None:  # type: ignore[no-untyped-def]
    db, settings = eval_index.db, eval_index.settings
    query = "how do I restore an older version of a note from a snapshot"
    body = rank_legs(db, settings, e5, query, "body", time.monotonic() + 30)
    assert body.passages and sorted(body.passages) == sorted(body.chunk_order)
    # the first passage is one both unit legs found, so its page is in both legs
    assert body.passages[0] in body.legs[r.LEG_LEXICAL] and body.passages[0] in body.legs[r.LEG_CHUNKS]
    # the pages holding a unit both unit legs found (bench/learned_order.py's "agreed") are in both legs
    assert body.passages[0] in body.agreed
    assert body.agreed <= set(body.legs[r.LEG_LEXICAL]) & set(body.legs[r.LEG_CHUNKS])
    # without the meaning leg there is no second vote for the wording leg's own order
    assert rank_legs(db, settings, None, query, "body", time.monotonic() + 30).passages == []
    summary = rank_legs(db, settings, e5, query, "summary", time.monotonic() + 30)
    assert summary.passages is not None
    assert set(summary.passages) <= set(summary.legs[r.LEG_LEXICAL]) | set(summary.legs[r.LEG_CHUNKS])


# Round eight lowered the meaning legs beside the passage vote (chunks 2.0 -> 1.75, summaries 0.75 -> 0.5, six
# choosing sets); round ten, on eight choosing sets, raised the wording and unit legs against the passage vote and
# the summary leg (lexical 1.5 -> 1.875, chunks 1.75 -> 2.25): a page the unit leg and the summary leg both favour
# outweighs a lone best passage again, and the unit leg's third page the wording leg's first (docs/retrieval.md,
# round ten). With round nine's weights both comparisons come out the other way.


def _above(legs: dict[str, list[str]], passages: list[str], page: str, other: str) -> bool:
    weights = fusion.fuse_legs(SearchSettings(), legs, passages=passages)
    return weights[page] > weights[other]


def test_a_page_the_unit_and_summary_legs_favour_outweighs_a_lone_best_passage() -> None:
    # "meaning": the summary leg's first page and the unit leg's third; "passage": only the best passage
    legs = {r.LEG_LEXICAL: [], r.LEG_CHUNKS: ["x", "y", "meaning"], r.LEG_SUMMARIES: ["meaning"]}
    assert _above(legs, ["passage"], "meaning", "passage")


def test_the_unit_legs_third_page_outweighs_the_wording_legs_first() -> None:
    legs = {r.LEG_LEXICAL: ["wording"], r.LEG_CHUNKS: ["x", "y", "meaning"], r.LEG_SUMMARIES: []}
    assert _above(legs, [], "meaning", "wording")


# Round eleven: the passage vote stands for the two unit legs' agreement, so the pages holding a unit both legs found
# come before those whose units only one leg found (that leg's own page vote carries them already).
ORDER = {"one-leg": [1, 2], "agreed": [3], "also-one-leg": [4]}


def test_pages_holding_a_unit_both_unit_legs_found_come_first_in_the_passage_ranking() -> None:
    assert fusion.passage_pages(ORDER, agreed={3}) == ["agreed", "one-leg", "also-one-leg"]
    # a page's later unit counts too: "one-leg"'s second unit is one both legs found
    assert fusion.passage_pages(ORDER, agreed={2, 3}) == ["one-leg", "agreed", "also-one-leg"]
    # no agreement: the unit-by-unit order itself
    assert fusion.passage_pages(ORDER) == list(ORDER)


def test_the_summary_rungs_roles_still_filter_the_agreed_pages() -> None:
    assert fusion.passage_pages(ORDER, lambda unit: unit != 3, agreed={3}) == ["one-leg", "also-one-leg"]


def test_the_body_rung_hands_the_passage_vote_the_units_both_legs_found(eval_index: Indexed, e5, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    handed: list[set[int]] = []
    real = fusion.passage_pages

    def recorded(order, shown=None, agreed=()):  # type: ignore[no-untyped-def]
        handed.append(set(agreed))
        return real(order, shown, agreed)

    monkeypatch.setattr(fusion, "passage_pages", recorded)
    query = "how do I restore an older version of a note from a snapshot"
    body = rank_legs(eval_index.db, eval_index.settings, e5, query, "body", time.monotonic() + 30)
    assert handed and handed[0], "rank_legs handed the passage vote no agreed units"
    units = {unit for page_units in body.chunk_order.values() for unit in page_units}
    assert handed[0] <= units
    assert body.passages and set(body.chunk_order[body.passages[0]]) & handed[0]
