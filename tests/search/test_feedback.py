"""The unit leg's pseudo-relevance feedback (``vectors.fed_back``, issue 32 round seventeen): a second pass with the
question moved toward what the first pass found, on a real small index with e5."""

from __future__ import annotations

import time

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.search import results as r
from sentinel.search.ladder import rank_legs
from sentinel.search.vectors import fed_back, nearest_scored
from sentinel.search.view import current_view
from sentinel.settings import Settings
from tests.support.vault import Indexed

QUERY = "how do I get back an older version of a note I overwrote"


def test_the_second_pass_moves_the_question_toward_the_units_fed_back(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    db = eval_index.db
    chunks = current_view(db).chunks
    assert chunks is not None
    vector = e5.embed([QUERY], "query").vectors[0]
    first = nearest_scored(db, chunks, vector, 30)
    # beta 0 moves nothing: the same units, the same cosines
    moved_not = fed_back(db, chunks, vector, list(first)[:3], 0.0, 30)
    assert list(moved_not) == list(first)
    assert all(abs(moved_not[c] - first[c]) < 1e-5 for c in first)
    # fed far toward one unit the question ranks low, the second pass finds that unit first
    far = list(first)[-1]
    assert next(iter(fed_back(db, chunks, vector, [far], 50.0, 30))) == far != next(iter(first))


def _with(settings: Settings, **feedback: object) -> Settings:
    return settings.model_copy(update={"search": settings.search.model_copy(update=feedback)})


def test_the_second_pass_replaces_the_unit_leg_or_votes_as_its_own(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    db, settings = eval_index.db, eval_index.settings
    base = rank_legs(db, settings, e5, QUERY, "body", time.monotonic() + 30)
    assert base.feedback is None  # off by default
    replaced = rank_legs(
        db, _with(settings, feedback_units=3, feedback_beta=0.6), e5, QUERY, "body", time.monotonic() + 30
    )
    assert replaced.feedback is None and base.scores is not None and replaced.scores is not None
    assert replaced.scores[r.LEG_CHUNKS] != base.scores[r.LEG_CHUNKS]  # the unit leg's cosines are the moved query's
    own = _with(settings, feedback_units=3, feedback_beta=0.6, feedback_leg="own")
    voted = rank_legs(db, own, e5, QUERY, "body", time.monotonic() + 30)
    assert voted.feedback and voted.legs[r.LEG_CHUNKS] == base.legs[r.LEG_CHUNKS]
