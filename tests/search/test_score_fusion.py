"""Fusing the wording and unit legs by their normalised scores (``fusion.convex_pages``, issue 32 round fifteen):
ranks alone cannot see that the right page is a hair behind in one leg and far ahead in the other."""

from __future__ import annotations

import time

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending, fusion, search
from sentinel.search import results as r
from sentinel.search.ladder import rank_legs
from sentinel.settings import SearchSettings, Settings
from tests.support.vault import WriteVault

QUERY = "how do I keep my sourdough starter alive while travelling"
# The answer, one window a little longer than the word list below, so bm25 puts it a hair behind; in meaning it
# is far ahead.
ANSWER = (
    "# Starter care\n\nBefore travelling, feed the sourdough starter, let it rise for an hour, then put it in the "
    "fridge: a fed starter stays alive for two weeks without attention. For longer journeys, dry a thin layer on "
    "baking paper and revive the flakes with flour and water when you are home. A starter that smells of nail "
    "polish is hungry, not dead.\n"
)
WORDS = "# Bakery words\n\nWords heard at the bakery: sourdough, travelling, starter, levain, crumb, proof.\n"
# Pages on other subjects, so the question's words are rare enough to count.
FILLER = {
    "Garden.md": "Tomatoes need sun and water every morning; the basil grows beside them in pots on the terrace.",
    "Train timetable.md": "The regional train leaves at 07:40 from platform 3 and the evening train at 19:10; "
    "tickets are sold at the office.",
    "Bicycle repair.md": "A flat tyre is patched by finding the puncture in a bowl of water, roughing the tube and "
    "pressing the patch for a minute.",
    "Tax return.md": "The tax return is due in May; receipts for the home office go in the blue folder under the desk.",
    "Piano practice.md": "Scales for ten minutes, then the left hand of the nocturne slowly, then both hands with the "
    "metronome at sixty.",
    "Car insurance.md": "The policy renews in October; the broker said the no-claims discount carries over to the new "
    "car.",
    "Birthday list.md": "Ana wants the green scarf, Sam the book about lighthouses, and grandmother a photo album of "
    "the summer.",
    "Roof leak.md": "Water came in above the attic window after the storm; the roofer will replace two slates on "
    "Thursday.",
    "Chess openings.md": "Against e4 I play the Caro-Kann; against d4 the Nimzo-Indian, and the London system as "
    "white.",
    "Running plan.md": "Three easy runs a week, one long run on Sunday, and intervals on the track every second "
    "Wednesday.",
    "Movie night.md": "We watched the old western on Friday; next time the Japanese animation that Ana recommended.",
    "Pasta sauce.md": "Garlic in olive oil, a tin of tomatoes, a pinch of chilli, simmer twenty minutes and finish "
    "with basil.",
}


def _by(settings: Settings, fusion_name: str) -> Settings:
    return settings.model_copy(update={"search": settings.search.model_copy(update={"fusion": fusion_name})})


def test_the_page_a_hair_behind_in_wording_and_far_ahead_in_meaning_comes_first(
    vault_settings: WriteVault, e5: OnnxEmbedder
) -> None:
    files = {name: f"# {name.removesuffix('.md')}\n\n{text}\n" for name, text in FILLER.items()}
    settings = vault_settings({**files, "Starter care.md": ANSWER, "Bakery words.md": WORDS})
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    ranking = rank_legs(db, settings, e5, QUERY, "body", time.monotonic() + 30)
    assert ranking.scores is not None
    wording, meaning = ranking.scores[r.LEG_LEXICAL], ranking.scores[r.LEG_CHUNKS]
    # by rank the answer is second in the wording leg and first in the unit leg: the word list wins the fusion
    assert ranking.legs[r.LEG_LEXICAL][:2] == ["Bakery words.md", "Starter care.md"]
    assert ranking.legs[r.LEG_CHUNKS][0] == "Starter care.md"
    # by score it is within a few percent of the word list in wording, and more than twice its cosine in meaning
    assert wording["Starter care.md"] > 0.9 * wording["Bakery words.md"]
    assert meaning["Starter care.md"] > 2 * meaning["Bakery words.md"]
    weighted = search(db, _by(settings, "weighted"), e5, QUERY, rung="body", limit=3)
    assert [hit.path for hit in weighted.hits][:2] == ["Bakery words.md", "Starter care.md"]
    assert settings.search.fusion == "scores"
    shipped = search(db, settings, e5, QUERY, rung="body", limit=3)
    assert [hit.path for hit in shipped.hits][:2] == ["Starter care.md", "Bakery words.md"]
    db.close()


def test_each_legs_scores_are_read_over_its_best_from_a_floor_of_zero() -> None:
    search_settings = SearchSettings(window_prior=0.0, score_alpha=0.4)
    scores = {
        r.LEG_LEXICAL: {"words": 10.0, "answer": 9.0, "only wording": 5.0},
        r.LEG_CHUNKS: {"answer": 0.6, "words": 0.3, "only meaning": -0.2},
    }
    # answer .4 * 1 + .6 * .9 = .94; words .4 * .5 + .6 = .8; only wording .6 * .5 = .3; a negative cosine reads 0
    assert fusion.convex_pages(search_settings, scores, {}) == ["answer", "words", "only wording", "only meaning"]
    # the window prior shrinks a page's wording score as it shrinks its wording vote
    prior = SearchSettings(window_prior=1.0, score_alpha=0.4)
    assert fusion.convex_pages(prior, scores, {"answer": 10})[0] == "words"
