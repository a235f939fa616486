"""The semantic legs of a query: e5 vectors of body chunks and of page summaries, ranked beside the lexical leg.

A query's legs run on two threads. The search pool embeds the query and ranks the chunks; the caller's thread
runs the lexical leg and what depends on it alone (``ladder.rank_legs``), and once the query is embedded the
pool hands it the summary leg (``with_summaries``), so the two sign-bit scans run at once, and what depends on
the summary leg alone; ``answer`` then adds the chunk leg. ONNX Runtime and numpy release the GIL,
so on two cores a body-rung query takes about its longest chain instead of the sum of its stages. Each leg is
a pure function of the view and the query's vector, whichever thread runs it: the answer is the one the legs
give run one after another (tests/search/test_legs_overlap.py; the time saved: docs/scale.md, "The legs on two
threads").
"""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field

import numpy as np

from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.search import filling, view_rows
from sentinel.search.centres import words_language
from sentinel.search.embedding import embed_command, identity_record
from sentinel.search.query_facets import Filter
from sentinel.search.results import Rung
from sentinel.search.vectors import VectorSet, nearest, nearest_scored
from sentinel.search.view import SearchView, current_view, generation, loaded_view

WORDING_ONLY = "these hits match wording only"
PAST_BUDGET = f"meaning search ran past its time budget; {WORDING_ONLY}"
WORDS_SURE = 0.9  # py3langid's normalised probability from which the query's words name its language

# One pool per process, never one per query: its threads embed and rank the chunks while callers' threads do the
# rest; a caller never waits on a task it did not submit itself, so a full pool only queues queries.
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sentinel-search")


@dataclass
class Meaning:
    """The semantic legs' answer: ranked chunk ids and page rowids, or why there is none."""

    chunks: list[int] = field(default_factory=list)
    chunk_scores: dict[int, float] = field(default_factory=dict)  # each of ``chunks``' exact centred cosine
    chunk_set: VectorSet | None = None  # the unit vectors the chunk leg ranked (a second pass ranks them again)
    pages: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    language: str = ""  # the query's language, as its vector's nearest language centre says
    vector: np.ndarray | None = None  # the query's e5 vector (the second stage scores with it)
    rows: view_rows.Rows | None = None  # the rows of the view the legs ranked from


@dataclass(frozen=True)
class _Embedded:
    """What the summary leg needs, handed from the pool once the query is embedded."""

    view: SearchView
    vector: np.ndarray


@dataclass(frozen=True)
class Started:
    """The semantic legs of one query under way on the search pool."""

    db: sqlite3.Connection
    query: str
    depth: int
    only: Filter | None
    held: SearchView | None  # the current view handed to the pool, when there was one
    embedded: Future[_Embedded | Meaning]  # the query's vector and view, or why the legs cannot run
    chunks: Future[tuple[dict[int, float], VectorSet | None]]  # the chunk leg's ranked ids with scores, its set


def start(
    db: sqlite3.Connection,
    embedder: Embedder | None,
    query: str,
    rung: Rung,
    depth: int,
    chunk_depth: int,
    only: Filter | None,
) -> Started | Meaning:
    """The semantic legs, started on the search pool (the caller runs the lexical leg meanwhile, then
    ``with_summaries`` and ``answer``), or why they cannot run."""
    if embedder is None:
        return Meaning(notes=[f"meaning search is off (no embedder configured); {WORDING_ONLY}"])
    # a current view is handed over: the legs then never wait on the connection the lexical leg is using
    held = loaded_view(db)
    held = held if held is not None and held.generation == generation(db) else None
    embedded: Future[_Embedded | Meaning] = Future()
    chunks = _pool.submit(_embed_and_rank_chunks, db, embedder, query, rung, chunk_depth, only, held, embedded)
    return Started(db, query, depth, only, held, embedded, chunks)


def _embed_and_rank_chunks(
    db: sqlite3.Connection,
    embedder: Embedder,
    query: str,
    rung: Rung,
    k: int,
    only: Filter | None,
    held: SearchView | None,
    embedded: Future[_Embedded | Meaning],
) -> tuple[dict[int, float], VectorSet | None]:
    """On the pool: embed the query, hand it over (``embedded`` is always settled, also on an error), then rank
    the chunks."""
    try:
        view = held if held is not None else current_view(db)
        if view.identity is not None and view.identity != identity_record(embedder.identity):
            note = (
                f"the index's vectors were made by another model than the embedder's: run {embed_command(reembed=True)}"
            )
            embedded.set_result(Meaning(notes=[f"{note}; {WORDING_ONLY}"]))
            return {}, None
        if view.chunks is None and view.summaries is None:
            embedded.set_result(
                Meaning(notes=[f"nothing has been embedded yet (run {embed_command()}); {WORDING_ONLY}"])
            )
            return {}, None
        vector = embedder.embed([query], "query").vectors[0]
    except BaseException as err:
        embedded.set_exception(err)
        raise
    embedded.set_result(_Embedded(view, vector))
    chunk_set = view.summary_role_chunks if rung == "summary" else view.chunks
    if chunk_set is None:
        return {}, None
    if only is not None:  # a faceted search ranks only the pages the facets allow
        chunk_set = chunk_set.subset(np.isin(chunk_set.items, only.chunk_ids))
    return nearest_scored(db, chunk_set, vector, k), chunk_set


def with_summaries(started: Started | Meaning, deadline: float) -> Meaning:
    """Once the pool has embedded the query: the summary leg, ranked on this thread while the pool ranks the
    chunks (``answer`` adds them); or why the semantic legs cannot run."""
    if isinstance(started, Meaning):
        return started
    try:
        embedded = started.embedded.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout:
        return Meaning(notes=[PAST_BUDGET])
    except EmbedderUnavailable as err:
        return Meaning(notes=[f"meaning search is unavailable ({err}); {WORDING_ONLY}"])
    if isinstance(embedded, Meaning):
        return embedded
    view, vector = embedded.view, embedded.vector
    notes, language = _coverage_notes(view), _language_of(view, vector, started.query)
    out = Meaning(notes=notes, language=language, vector=vector, rows=view.rows)
    out.pages = _summary_leg(started.db, view.summaries, vector, started.depth, started.only)
    return out


def answer(started: Started | Meaning, found: Meaning, deadline: float) -> Meaning:
    """``found`` (``with_summaries``) with the pool's chunk leg; given up (not failed) when the legs do not
    finish by ``deadline``."""
    if isinstance(started, Meaning) or found.vector is None:
        return found  # the legs did not run: ``found`` says why
    try:
        chunks, found.chunk_set = started.chunks.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout:
        return Meaning(notes=[PAST_BUDGET])
    if time.monotonic() > deadline:  # the summary leg ran past it
        return Meaning(notes=[PAST_BUDGET])
    found.chunks, found.chunk_scores = list(chunks), chunks
    return found


def _summary_leg(
    db: sqlite3.Connection, summaries: VectorSet | None, vector: np.ndarray, k: int, only: Filter | None
) -> list[int]:
    if summaries is None:
        return []
    if only is not None:
        summaries = summaries.subset(np.isin(summaries.items, only.page_ids))
    return nearest(db, summaries, vector, k)


def _language_of(view: SearchView, vector: np.ndarray, text: str) -> str:
    """The query's language: its words' (py3langid among the vault's languages) when they are sure, else its
    vector's nearest language centre (a short English question fell nearer the German centre on a vault where
    adding six English pages moved the centres)."""
    centres = view.chunks.centres if view.chunks is not None else None
    if centres is None or len(centres.languages) < 2:
        return ""
    by_words, sure = words_language(text, tuple(centres.languages))
    if sure >= WORDS_SURE:
        return by_words
    return centres.languages[int(centres.nearest(vector[None, :])[0])]


def _coverage_notes(view: SearchView) -> list[str]:
    filled = filling.of_view(view)
    if not filled.filling:
        return []
    left = filled.chunks.total - filled.chunks.done
    more = f" and {left - len(filled.waiting)} more" if left > len(filled.waiting) else ""
    waiting = f"; waiting: {', '.join(filled.waiting)}{more}" if filled.waiting else ""
    return [
        f"meaning search is still filling: {filled.figures()}{waiting} (edits are embedded within seconds, the "
        f"rest by the maintenance pass or {embed_command()}); a page not yet embedded is found by wording only, "
        "so results may be thin"
    ]
