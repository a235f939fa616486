"""The legs of a query run on two threads (``sentinel.search.meaning``) and answer as if run one after another.

The reference runs every leg in turn on the test's thread, as the ladder did before the legs overlapped: the
view, the query's vector, the chunk and summary legs, then the lexical leg and the chunks' pages. Real e5 vectors
on the eval slice. How much time the overlap saves: docs/scale.md, "The legs on two threads".
"""

from __future__ import annotations

import math
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending, fusion, ladder, meaning, search
from sentinel.search import results as r
from sentinel.search.lexical import lexical_scored, lexical_terms, windows_per_page
from sentinel.search.query_facets import Filter, page_filter, split_query
from sentinel.search.summaries import excerpts_of_entries
from sentinel.search.vectors import nearest, nearest_scored
from sentinel.search.view import chunk_count, current_view
from sentinel.settings import Settings
from tests.search.test_first_stage import QUERIES
from tests.support.vault import Indexed, WriteVault

pytestmark = pytest.mark.slow

RUNGS = ("summary", "body")


def _in_turn(
    db: sqlite3.Connection,
    settings: Settings,
    embedder: OnnxEmbedder,
    text: str,
    rung: str,
    deadline: float,
    only: Filter | None,
) -> ladder.Ranking:
    """``ladder.rank_legs`` one leg after another on this thread (``windows`` left to ``fuse``)."""
    depth = settings.search.leg_depth
    view = current_view(db)
    vector = embedder.embed([text], "query").vectors[0]
    chunk_set = view.summary_role_chunks if rung == "summary" else view.chunks
    summary_set = view.summaries
    if only is not None:
        chunk_set = chunk_set.subset(np.isin(chunk_set.items, only.chunk_ids)) if chunk_set is not None else None
        summary_set = summary_set.subset(np.isin(summary_set.items, only.page_ids)) if summary_set else None
    scored = nearest_scored(db, chunk_set, vector, depth * ladder.CHUNKS_PER_PAGE) if chunk_set is not None else {}
    chunks = list(scored)
    pages = nearest(db, summary_set, vector, depth) if summary_set is not None else []
    terms = lexical_terms(db, text, chunk_count(db))
    lexical_found = lexical_scored(db, terms, depth * ladder.CHUNKS_PER_PAGE, only.facets if only else None)
    lexical = list(lexical_found)
    where = ladder._chunk_pages(db, lexical + chunks, view.rows)
    summary_rung = rung == "summary"
    legs = {r.LEG_LEXICAL: ladder._pages_by_best_chunk(lexical, where, summary_rung)}
    scores = None
    if chunks or pages:
        legs[r.LEG_CHUNKS] = ladder._pages_by_best_chunk(chunks, where, summary_rung)
        legs[r.LEG_SUMMARIES] = ladder._paths_of(db, pages, view.rows)
        scores = {
            r.LEG_LEXICAL: ladder._best_scores(lexical_found, where, summary_rung),
            r.LEG_CHUNKS: ladder._best_scores(scored, where, summary_rung),
        }
    page_of = {cid: page for cid, (page, _) in where.items()}
    notes, language = meaning._coverage_notes(view), meaning._language_of(view, vector, text)
    order = fusion.chunk_order(lexical, chunks, page_of)
    shown = (lambda cid: where[cid][1]) if summary_rung else None
    passages = fusion.passage_pages(order, shown, set(lexical).intersection(chunks)) if chunks else []
    return ladder.Ranking(legs, order, notes, language, vector, passages=passages, scores=scores)


def _filters(indexed: Indexed) -> list[Filter | None]:
    filters, _ = split_query(indexed.db, "mobile:true x")  # the plugins' pages
    only = page_filter(indexed.db, filters, indexed.settings)
    assert only is not None and 0 < len(only.paths) < indexed.db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    return [None, only]


def test_the_legs_on_two_threads_rank_as_the_legs_in_turn(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    db, settings = eval_index.db, eval_index.settings
    current_view(db)  # loaded: the pool is handed the view, as in a warm search process
    for only in _filters(eval_index):
        for query in QUERIES:
            for rung in RUNGS:
                deadline = time.monotonic() + 60
                got = ladder.rank_legs(db, settings, e5, query, rung, deadline, only)  # type: ignore[arg-type]
                want = _in_turn(db, settings, e5, query, rung, deadline, only)
                assert (got.legs, got.chunk_order, got.passages, got.notes, got.language) == (
                    want.legs,
                    want.chunk_order,
                    want.passages,
                    want.notes,
                    want.language,
                ), (query, rung, only)
                # the same scores; bm25 from FTS5 and from the held postings may differ in the last bit
                assert got.scores is not None and want.scores is not None
                assert {leg: list(pages) for leg, pages in got.scores.items()} == {
                    leg: list(pages) for leg, pages in want.scores.items()
                }
                for leg, pages in got.scores.items():
                    assert all(math.isclose(v, want.scores[leg][p], rel_tol=1e-12) for p, v in pages.items())
                assert got.vector is not None and want.vector is not None
                assert np.array_equal(got.vector, want.vector)
                assert got.windows == windows_per_page(db, want.legs[r.LEG_LEXICAL])
                assert got.excerpts == excerpts_of_entries(db, want.legs.get(r.LEG_SUMMARIES, []))
                assert got.legs.get(r.LEG_CHUNKS) and got.legs.get(r.LEG_SUMMARIES), (query, rung)


def _calls(indexed: Indexed, budget_s: float | None = None) -> list[tuple[Settings, str, str, bool]]:
    settings = indexed.settings
    if budget_s is not None:  # searches queued behind others must not run out of time
        settings = settings.model_copy(update={"search": settings.search.model_copy(update={"timeout_s": budget_s})})
    staged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": True})})
    return [
        (s, q, rung, every) for s in (settings, staged) for q in QUERIES for rung in RUNGS for every in (False, True)
    ]


def test_search_gives_what_the_legs_in_turn_gave(
    eval_index: Indexed, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _calls(eval_index)

    def run() -> list[object]:
        return [search(eval_index.db, s, e5, q, rung=rung, all_languages=every) for s, q, rung, every in calls]  # type: ignore[arg-type]

    now = run()
    monkeypatch.setattr(ladder, "rank_legs", _in_turn)
    assert run() == now
    assert all(result.hits for result in now)  # type: ignore[attr-defined]


def test_searches_at_once_answer_as_searches_one_at_a_time(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    """More searches at once than the pool has threads (an API serving several requests): each waits its turn
    for the pool, none waits on another's task, and each answers as it does alone."""
    calls = _calls(eval_index, budget_s=120) * 2
    alone = [search(eval_index.db, s, e5, q, rung=rung, all_languages=every) for s, q, rung, every in calls]  # type: ignore[arg-type]
    with ThreadPoolExecutor(max_workers=6) as callers:
        together = list(
            callers.map(
                lambda call: search(eval_index.db, call[0], e5, call[1], rung=call[2], all_languages=call[3]), calls
            )  # type: ignore[arg-type]
        )
    assert together == alone
    assert not any(result.notes for result in together)


def _chat(who: str, topic: str) -> str:
    turns = [f"- **{who if i % 2 else 'Sam'}:** {topic}, part {i} of what we said" for i in range(10)]
    return f"# Chat with {who}\n\n" + "\n".join(turns)


CHATS = {
    "Chats/Ana.md": _chat("Ana", "the train to Lisbon leaves at nine and we book the seats tonight"),
    "Chats/Ben.md": _chat("Ben", "the sourdough starter needs feeding twice a day in summer"),
    "Chats/Cem.md": _chat("Cem", "the bicycle chain skips on the smallest cog after the rain"),
    "Help/Trains.md": "# Trains to Lisbon\n\nNight trains to Lisbon leave from Madrid; book the seats early.\n",
    "Help/Bread.md": "# Sourdough\n\nA starter is flour and water, fed once or twice a day.\n",
}


def test_the_summary_leg_s_excerpts_are_those_of_the_legs_in_turn(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    """Chat logs: their summary vector stands for their first turns, so ``rank_legs`` finds excerpts of entries
    (while the chunk leg runs) and the fusion weighs them as it does from the legs in turn."""
    settings = vault_settings(CHATS)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    current_view(db)
    found_excerpts = False
    for query in ("when does the Lisbon train leave", "feeding a sourdough starter", "chain skips after rain"):
        for rung in RUNGS:
            deadline = time.monotonic() + 60
            got = ladder.rank_legs(db, settings, e5, query, rung, deadline)  # type: ignore[arg-type]
            want = _in_turn(db, settings, e5, query, rung, deadline, None)
            assert (got.legs, got.chunk_order) == (want.legs, want.chunk_order)
            assert got.excerpts == excerpts_of_entries(db, want.legs.get(r.LEG_SUMMARIES, []))
            found_excerpts |= bool(got.excerpts)
            fused = ladder.fuse(db, settings, got.legs, windows=got.windows, excerpts=got.excerpts)
            assert fused.ranked == ladder.fuse(db, settings, want.legs).ranked
    assert found_excerpts
    db.close()
