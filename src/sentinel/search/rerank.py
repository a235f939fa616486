"""The second stage: the fused ranking's top ``k`` pages ordered again by their closest unit to the query.

The chunk leg sees a page only through the units its Hamming stage let through (``vectors.CANDIDATES`` of
every vector in the vault); here every stored unit of each of the top ``k`` pages is scored exactly (centred
cosine of the stored e5 vectors to the query's, as ``vectors.nearest`` scores), and a page's score is its best
unit's: for an entry-level page that is the one line that answers. No model runs: the vectors are those the
index holds, so the cost is one read of the candidates' vectors from the view's mapped store
(bench/search_latency.py measures it). The order that results is fused by rank with the first stage's,
weighted (``SearchSettings.rerank_weight``): only ranks leave this module, never a similarity.

No small multilingual cross-encoder ships as ONNX in a registry package (checked: the PyPI list in this
project's environment has rerankers that download weights at run time only), so the stage scores with e5.
"""

from __future__ import annotations

import sqlite3
import weakref

import numpy as np

from sentinel.search.fusion import rrf
from sentinel.search.vectors import restored_rows
from sentinel.search.view import SearchView

Units = tuple[list[str], np.ndarray, np.ndarray]

# The last answer of ``_unit_rows``: the second stage reads the units of the fused top 30 and the family step
# (``families.page_vectors``) those of the same 30 pages after the second stage reordered them, the same rows in
# the same order. Kept for one view (weakly: a replaced view is let go) and one set of pages, read-only.
_last: tuple[weakref.ref[SearchView], frozenset[str], Units] | None = None


def _unit_rows(db: sqlite3.Connection, view: SearchView, paths: list[str]) -> Units:
    """Every embedded unit of these pages: the page of each row, its chunk id, and the rows' centred vectors (the
    rows ascending, whatever the order of ``paths``; the arrays are read-only)."""
    global _last
    key = frozenset(paths)
    last = _last
    if last is not None and last[0]() is view and last[1] == key:
        return last[2]
    found = _read_units(db, view, paths)
    for array in found[1:]:
        array.setflags(write=False)
    _last = (weakref.ref(view), key, found)
    return found


def _read_units(db: sqlite3.Connection, view: SearchView, paths: list[str]) -> Units:
    chunks = view.chunks
    wanted = {rowid: p for rowid, p in zip(view.rows.pages.rowids_of(paths).tolist(), paths, strict=True) if rowid >= 0}
    if chunks is None or not wanted:
        return [], np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
    rows = view.rows.chunks.rows_of_pages(np.fromiter(wanted, dtype=np.int64))
    rows, restored = restored_rows(db, chunks, rows)
    if not len(rows):
        return [], np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
    centred = chunks.centres.centred(restored, chunks.centre_of[rows])
    return [wanted[page] for page in view.rows.chunks.page[rows].tolist()], chunks.items[rows], centred


def page_units(db: sqlite3.Connection, view: SearchView, paths: list[str]) -> tuple[list[str], np.ndarray]:
    """Every embedded unit of these pages: the page of each row, and the rows' centred vectors."""
    owners, _, centred = _unit_rows(db, view, paths)
    return owners, centred


def best_unit_ids(
    db: sqlite3.Connection, view: SearchView, query: np.ndarray, paths: list[str]
) -> dict[str, tuple[float, int]]:
    """Each page's best centred cosine over all of its embedded units, and that unit's chunk id (pages with
    none are left out)."""
    owners, items, centred = _unit_rows(db, view, paths)
    if not owners or view.chunks is None:
        return {}
    scores = centred @ view.chunks.centres.centred(query[None, :])[0]
    best: dict[str, tuple[float, int]] = {}
    for path, item, score in zip(owners, items.tolist(), scores.tolist(), strict=True):
        if path not in best or score > best[path][0]:
            best[path] = (score, item)
    return best


def best_units(db: sqlite3.Connection, view: SearchView, query: np.ndarray, paths: list[str]) -> dict[str, float]:
    """Each page's best centred cosine over all of its embedded units (pages with none are left out)."""
    return {path: score for path, (score, _) in best_unit_ids(db, view, query, paths).items()}


def reranked(
    db: sqlite3.Connection,
    view: SearchView,
    query: np.ndarray,
    ranked: list[str],
    *,
    depth: int,
    weight: float,
    k: float,
) -> list[str]:
    """``ranked`` with its first ``depth`` pages fused (weighted RRF, constant ``k``) with their order by
    best unit; the rest follow unchanged."""
    top = ranked[:depth]
    best = best_units(db, view, query, top)
    if len(best) < 2:
        return ranked
    by_unit = sorted(best, key=lambda p: -best[p])
    return rrf([top, by_unit], k=k, weights=[1.0, weight]) + ranked[depth:]
