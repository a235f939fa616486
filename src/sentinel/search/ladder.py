"""The search ladder, cheapest rung first: exact page lookup, summary rung, body rung.

Both rungs rank pages the same way: three legs fused (bench/retrieval.py measures each), the two that score
units by their normalised scores, then every leg by rank (``fusion``):
  - lexical: FTS5 bm25 over body chunks, a page ranked by its best chunk;
  - semantic over chunks: e5 vectors of body chunks, a page ranked by its best chunk;
  - semantic over summaries: e5 vectors of each page's title and summary line.
The summary rung shows one line per page (notes, wiki and other pages only); the body rung shows each
page's best chunk verbatim with its heading trail (every folder). If meaning search cannot run (no
embedder, no vectors, another model, over the time budget) the answer comes from the lexical leg alone and
says so in ``notes``: never silently half a search.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sentinel.embed.base import Embedder
from sentinel.errors import BadInput
from sentinel.paths import SUMMARY_RUNG_ROLES
from sentinel.search import fusion, graph, meaning, view_rows
from sentinel.search import results as r
from sentinel.search.families import collapse
from sentinel.search.graph import walk as walk_graph
from sentinel.search.hits import build_hits, exact_pages, quality_flags
from sentinel.search.lexical import lexical_scored, lexical_terms, windows_per_page
from sentinel.search.query_facets import Filter, FilterError, page_filter, split_query
from sentinel.search.rerank import reranked
from sentinel.search.results import Hit, Rung, SearchResult
from sentinel.search.scope import boundary_note, kept_out
from sentinel.search.summaries import excerpts_of_entries
from sentinel.search.vectors import fed_back
from sentinel.search.view import chunk_count, current_view
from sentinel.settings import Settings

CHUNKS_PER_PAGE = 3  # chunk candidates fetched per page a leg should contribute


class SearchInputError(BadInput, ValueError):
    """A search request that cannot be answered as given, with what to send instead."""


def _check(query: object, rung: object, cursor: object, limit: int) -> str:
    if not isinstance(query, str) or not query.strip():
        raise SearchInputError("the query is empty: give a few words or a question")
    if rung not in r.RUNGS:
        raise SearchInputError(f"rung must be 'summary' or 'body', got {rung!r}")
    if not isinstance(cursor, int) or cursor < 0:
        raise SearchInputError(f"cursor must be a whole number >= 0 (from next_cursor), got {cursor!r}")
    if limit < 1:
        raise SearchInputError(f"limit must be at least 1, got {limit}")
    return " ".join(query.split())


def _chunk_pages(
    db: sqlite3.Connection, chunk_ids: list[int], rows: view_rows.Rows | None
) -> dict[int, tuple[str, bool]]:
    """(page path, whether the summary rung shows the page) of each chunk id: from the view's ``rows`` for the
    chunks with a vector, without reading the index (a row of ``chunks`` read by id cost ~8 us at 100k pages);
    from the index for the rest."""
    found: dict[int, tuple[str, bool]] = {}
    ids = sorted(set(chunk_ids))
    if rows is not None and len(rows.chunks) and ids:
        table, wanted = rows.chunks, np.array(ids, dtype=np.int64)
        at, held = table.rows_of_items(wanted)
        pages = table.page[at[held]]
        paths = rows.pages.paths_or_none(pages)
        for cid, page, path, shown in zip(
            wanted[held].tolist(), pages.tolist(), paths, table.summary_role[at[held]].tolist(), strict=True
        ):
            if path is None:  # every row's page is one of the view's
                raise KeyError(page)
            found[cid] = (path, shown)
        ids = wanted[~held].tolist()
    roles = sorted(_SUMMARY_ROLES)
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        for cid, path, shown in db.execute(
            f"SELECT c.id, c.path, p.role IN ({','.join('?' * len(roles))}) FROM chunks c "
            f"JOIN pages p ON p.path = c.path WHERE c.id IN ({marks})",
            [*roles, *batch],
        ):
            found[int(cid)] = (path, bool(shown))
    return found


def _pages_by_best_chunk(chunks: list[int], where: dict[int, tuple[str, bool]], summary_rung: bool) -> list[str]:
    ranked: dict[str, None] = {}
    for cid in chunks:
        if cid in where and (not summary_rung or where[cid][1]):
            ranked.setdefault(where[cid][0], None)
    return list(ranked)


def _best_scores(
    scored: Mapping[int, float], where: dict[int, tuple[str, bool]], summary_rung: bool
) -> dict[str, float]:
    """Each page's best unit score among a unit leg's candidates (the pages the rung shows)."""
    best: dict[str, float] = {}
    for cid, score in scored.items():
        if cid in where and (not summary_rung or where[cid][1]):
            page = where[cid][0]
            best[page] = max(score, best.get(page, score))
    return best


def _paths_of(db: sqlite3.Connection, page_ids: list[int], rows: view_rows.Rows | None) -> list[str]:
    if not page_ids:
        return []
    if rows is not None:  # the view the ids came from knows their paths
        return rows.pages.paths_of(page_ids)
    marks = ",".join("?" * len(page_ids))
    by_id = dict(db.execute(f"SELECT rowid, path FROM pages WHERE rowid IN ({marks})", page_ids).fetchall())
    return [by_id[i] for i in page_ids if i in by_id]


@dataclass
class Ranking:
    """Each leg's ranked pages for one query, before fusion (the benchmark scores every leg from this)."""

    legs: dict[str, list[str]]
    chunk_order: dict[str, list[int]]  # each page's candidate chunks, best first
    notes: list[str]
    language: str = ""  # the query's language ("" when no vector says, or the vault has one language)
    vector: np.ndarray | None = None  # the query's vector, when meaning search ran
    windows: dict[str, int] | None = None  # ``lexical.windows_per_page`` of the lexical leg's pages
    excerpts: set[str] | None = None  # ``summaries.excerpts_of_entries`` of the summary leg's pages
    passages: list[str] | None = None  # ``fusion.passage_pages``: pages by the best unit both unit legs agree on
    agreed: frozenset[str] = frozenset()  # pages holding a unit both unit legs found
    scores: dict[str, dict[str, float]] | None = None  # the unit legs' pages' best unit scores (``_best_scores``)
    feedback: list[str] | None = None  # the unit leg's second pass's pages, where it votes as its own leg


_SUMMARY_ROLES = frozenset(role.value for role in SUMMARY_RUNG_ROLES)


def _roles(rung: Rung) -> frozenset[str] | None:
    """The page roles a rung shows (None: all)."""
    return _SUMMARY_ROLES if rung == "summary" else None


def rank_legs(
    db: sqlite3.Connection,
    settings: Settings,
    embedder: Embedder | None,
    text: str,
    rung: Rung,
    deadline: float,
    only: Filter | None = None,
) -> Ranking:
    """Run the legs: lexical always; semantic when an embedder, vectors and time allow. ``only`` limits
    every leg to the pages a facet filter allows."""
    depth = settings.search.leg_depth
    started = meaning.start(db, embedder, text, rung, depth, depth * CHUNKS_PER_PAGE, only)
    # meanwhile the lexical leg and what needs it alone, on this thread: the pool embeds the query and ranks the
    # chunks, then hands the summary leg back here (``meaning.answer``)
    terms = lexical_terms(db, text, chunk_count(db))
    lexical_found = lexical_scored(db, terms, depth * CHUNKS_PER_PAGE, only.facets if only else None)
    lexical = list(lexical_found)
    held = started.held if isinstance(started, meaning.Started) else None
    where = _chunk_pages(db, lexical, held.rows if held is not None else None)
    summary_rung = rung == "summary"
    legs: dict[str, list[str]] = {r.LEG_LEXICAL: _pages_by_best_chunk(lexical, where, summary_rung)}
    windows = windows_per_page(db, legs[r.LEG_LEXICAL])
    found = meaning.with_summaries(started, deadline)
    summary_pages = _paths_of(db, found.pages, found.rows)  # and what needs them alone, while the chunks rank
    excerpts = excerpts_of_entries(db, summary_pages)
    found = meaning.answer(started, found, deadline)
    fed = _second_pass(db, settings, lexical, found)
    if fed and settings.search.feedback_leg == "replace":
        found.chunks, found.chunk_scores, fed = list(fed), fed, {}
    where.update(_chunk_pages(db, [c for c in [*found.chunks, *fed] if c not in where], found.rows))
    scores = None
    if found.chunks or found.pages:
        legs[r.LEG_CHUNKS] = _pages_by_best_chunk(found.chunks, where, summary_rung)
        legs[r.LEG_SUMMARIES] = summary_pages
        scores = {
            r.LEG_LEXICAL: _best_scores(lexical_found, where, summary_rung),
            r.LEG_CHUNKS: _best_scores(found.chunk_scores, where, summary_rung),
        }
    page_of = {cid: page for cid, (page, _) in where.items()}
    chunk_order = fusion.chunk_order(lexical, found.chunks, page_of)
    excerpts = excerpts if r.LEG_SUMMARIES in legs else set()
    # without the meaning leg's units the passage order is the wording leg's again: no second vote for it
    shown = (lambda cid: where[cid][1]) if summary_rung else None
    agreed = set(lexical).intersection(found.chunks)
    passages = fusion.passage_pages(chunk_order, shown, agreed) if found.chunks else []
    both = frozenset(page_of[cid] for cid in agreed if cid in page_of)
    fed_pages = _pages_by_best_chunk(list(fed), where, summary_rung) if fed else None
    ranked = (legs, chunk_order, found.notes, found.language, found.vector, windows, excerpts, passages, both)
    return Ranking(*ranked, scores, fed_pages)


def _second_pass(
    db: sqlite3.Connection, settings: Settings, lexical: list[int], found: meaning.Meaning
) -> dict[int, float]:
    """The unit leg's pseudo-relevance feedback (``vectors.fed_back``), when ``feedback_units`` asks: the query
    moved toward the first pass's best units (``feedback_from`` "units") or the best that both unit legs found, in
    the order of the passage vote ("agreed"); {} when off or nothing to feed back."""
    search = settings.search
    if not search.feedback_units or found.vector is None or found.chunk_set is None or not found.chunks:
        return {}
    if search.feedback_from == "units":
        seeds = found.chunks[: search.feedback_units]
    else:
        both = set(lexical).intersection(found.chunks)
        seeds = [c for c in fusion.rrf_weights([lexical, found.chunks]) if c in both][: search.feedback_units]
    depth = search.leg_depth * CHUNKS_PER_PAGE
    return fed_back(db, found.chunk_set, found.vector, seeds, search.feedback_beta, depth) if seeds else {}


@dataclass
class Fused:
    ranked: list[str]  # pages, best first
    flags: dict[str, tuple[str, ...]]  # quality labels of the pages that have any
    graph_only: set[str]  # pages only the PageRank walk brought in


def fuse(
    db: sqlite3.Connection,
    settings: Settings,
    legs: dict[str, list[str]],
    *,
    graph: bool = False,
    roles: frozenset[str] | None = None,
    vector: np.ndarray | None = None,
    windows: Mapping[str, int] | None = None,
    excerpts: Collection[str] | None = None,
    passages: Sequence[str] = (),
    scores: Mapping[str, Mapping[str, float]] | None = None,
    feedback: Sequence[str] = (),
) -> Fused:
    """The fused page ranking: RRF of the legs, then (``graph``) the PageRank rerank, then the quality
    penalty (the policies are ``fusion``'s), then (``SearchSettings.rerank``, with the query's ``vector``)
    the second stage over the top pages (``sentinel.search.rerank``). ``windows`` and ``excerpts``: the lexical
    leg's window counts and the summary leg's excerpts of entries where the caller has them (``rank_legs`` finds
    them while the chunk leg runs); ``passages``: ``Ranking.passages`` (none: the three legs alone); ``scores``:
    ``Ranking.scores`` (none: the legs by rank alone); ``feedback``: ``Ranking.feedback``."""
    if windows is None:
        windows = windows_per_page(db, legs.get(r.LEG_LEXICAL, []))
    if excerpts is None:
        excerpts = excerpts_of_entries(db, legs.get(r.LEG_SUMMARIES, []))
    weights = fusion.fuse_legs(settings.search, legs, excerpts, windows, passages, scores, feedback)
    found = set(weights)
    if graph:
        weights = fusion.with_walk(settings.search, list(weights), walk_graph(db, list(weights), roles))
    flags = quality_flags(db, list(weights))
    ranked = fusion.penalised(settings.search, weights, flags)
    search = settings.search
    if search.rerank and vector is not None:
        ranked = reranked(
            db, current_view(db), vector, ranked, depth=search.rerank_depth, weight=search.rerank_weight, k=search.rrf_k
        )
    return Fused(ranked, flags, set(weights) - found)


def _within_scope(
    db: sqlite3.Connection, settings: Settings, ranked: list[str], only: Filter | None, shown: int, notes: list[str]
) -> list[str]:
    """``ranked`` without the pages the scope boundary keeps out; a note when one of them would have been shown."""
    facets = only.facets if only else None
    out = kept_out(db, settings, facets)
    if not out:
        return ranked
    if left := sum(p in out for p in ranked[:shown]):
        notes.append(boundary_note(left, settings, facets))
    return [p for p in ranked if p not in out]


def search(
    db: sqlite3.Connection,
    settings: Settings,
    embedder: Embedder | None,
    query: str,
    rung: Rung = "summary",
    cursor: int = 0,
    *,
    limit: int | None = None,
    pagerank: bool | None = None,
    all_languages: bool = False,
) -> SearchResult:
    """Search the index: exact page matches first, then the rung's fused ranking, ``limit`` hits from
    ``cursor`` on. ``pagerank`` forces the graph rerank on or off; None leaves it to the query's shape
    (``SearchSettings.pagerank``). A page and its translations are one hit, in the query's language, unless
    ``all_languages`` asks for every copy (``sentinel.search.families``). Raises ``SearchInputError`` for an
    empty query, an unknown rung or a bad cursor."""
    limit = limit or settings.search_hits
    filters, text = split_query(db, _check(query, rung, cursor, limit))
    try:
        only = page_filter(db, filters, settings)
    except FilterError as err:
        raise SearchInputError(str(err)) from err
    if not text:
        raise SearchInputError(
            f"'{filters}' only filters: add the words to search for, or use listing to enumerate pages by facet"
        )
    ranking = rank_legs(db, settings, embedder, text, rung, time.monotonic() + settings.search.timeout_s, only)
    walk = graph.should_run(settings, text, pagerank)
    fused = fuse(
        db,
        settings,
        ranking.legs,
        graph=walk,
        roles=_roles(rung),
        vector=ranking.vector,
        windows=ranking.windows,
        excerpts=ranking.excerpts,
        passages=ranking.passages or (),
        scores=ranking.scores,
        feedback=ranking.feedback or (),
    )
    roles = _roles(rung)
    named = exact_pages(db, text)
    exact = [path for path, role in named if roles is None or role in roles]
    notes = ranking.notes + [
        f"{path} is a {role} page, which the summary rung does not show: rung='body' shows it"
        for path, role in named
        if path not in exact
    ]
    ranked = exact + [p for p in fused.ranked if p not in exact]
    if only is not None:
        ranked = [p for p in ranked if p in only.paths]
    ranked = _within_scope(db, settings, ranked, only, cursor + limit, notes)
    translations = None if all_languages else collapse(db, ranked, ranking.language)
    ranked = translations.ranked if translations else ranked
    window = ranked[cursor : cursor + limit]
    found_by = {p: tuple(name for name, pages in ranking.legs.items() if p in pages) for p in window}
    for path in set(ranking.feedback or ()) & set(window):  # the unit leg's second pass found it
        found_by[path] = found_by[path] or (r.LEG_CHUNKS,)
    for path in fused.graph_only & set(window):
        found_by[path] = (r.LEG_GRAPH,)
    hits: list[Hit] = build_hits(db, window, rung, set(exact), found_by, fused.flags, ranking.chunk_order, translations)
    used = [r.LEG_EXACT] if exact else []
    used += [name for name, pages in ranking.legs.items() if pages or name == r.LEG_LEXICAL]
    used += [r.LEG_GRAPH] if walk else []
    return SearchResult(
        query=text,
        rung=rung,
        hits=hits,
        notes=notes,
        legs_used=used,
        cursor=cursor,
        next_cursor=cursor + limit if len(ranked) > cursor + limit else None,
    )
