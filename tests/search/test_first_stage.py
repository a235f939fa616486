"""The semantic legs' first stage (sign-bit Hamming candidates) keeps the exhaustive ranking's best hit.

Real e5 vectors of the eval slice; "exhaustive" is the same ``nearest`` with every row rescored at full width
(what a vault smaller than ``CANDIDATES`` gets), the first stage is forced by asking for fewer candidates than
the slice has rows. How often it keeps the whole top 10 on bigger sets: ``bench/first_stage.py``.
"""

from __future__ import annotations

import numpy as np

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.search.vectors import HAMMING_BLOCK, Centres, hamming_candidates, nearest
from sentinel.search.view import current_view
from tests.support.vault import Indexed

QUERIES = [
    "how do I get back a deleted note",
    "silinen bir notu nasıl geri getiririm",
    "record a voice memo",
    "keyboard shortcut to delete the current line",
    "sync status icon is red",
    "open a random page",
]


def test_first_stage_returns_the_exhaustive_top_hit(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    view = current_view(eval_index.db)
    assert view.chunks is not None
    rows = len(view.chunks)
    candidates = max(10, rows // 4)
    assert rows > candidates, "the slice must be bigger than the candidate count, or no first stage runs"
    for query in QUERIES:
        vector = e5.embed([query], "query").vectors[0]
        exhaustive = nearest(eval_index.db, view.chunks, vector, 10, candidates=rows)
        staged = nearest(eval_index.db, view.chunks, vector, 10, candidates=candidates)
        assert staged[0] == exhaustive[0], query


def test_hamming_candidates_are_the_nearest_by_bit_count() -> None:
    rng = np.random.default_rng(5)
    n, words = 5000, 6
    bits = rng.integers(0, 2**63, (words, n), dtype=np.uint64)
    bits[:, 100:140] = bits[:, 7:8]  # many ties at one distance: the cut must fall inside them
    query = rng.integers(0, 2**63, words, dtype=np.uint64)
    distance = np.unpackbits((bits ^ query[:, None]).T.copy().view(np.uint8), axis=1).sum(axis=1)
    for count in (1, 20, 120, 4999):
        got = hamming_candidates(bits, query, count, np.arange(n))
        assert len(got) == count and len(set(got.tolist())) == count
        worst = distance[got].max()
        assert (distance < worst).sum() <= count <= (distance <= worst).sum()
        assert set(np.flatnonzero(distance < worst).tolist()) <= set(got.tolist())


def test_hamming_candidates_across_blocks_are_the_reference_selection() -> None:
    """Over many scan blocks, with ties at the cut straddling two block edges: exactly the rows a plain
    full-width count and a stable sort pick (nearest first, ties in row order), returned ascending."""
    rng = np.random.default_rng(9)
    n, words = 11 * HAMMING_BLOCK + 777, 6
    bits = rng.integers(0, 2**63, (words, n), dtype=np.uint64)
    for edge in (HAMMING_BLOCK, 6 * HAMMING_BLOCK):
        bits[:, edge - 50 : edge + 50] = bits[:, 3:4]  # 200 rows at one distance, across both edges
    query = bits[:, 3].copy()
    query[0] ^= np.uint64(0b111)  # that distance is 3: the nearest rows, so the cut falls inside the ties
    distance = np.unpackbits((bits ^ query[:, None]).T.copy().view(np.uint8), axis=1).sum(axis=1)
    for count in (1, 60, 150, 201, 5000):
        reference = np.sort(np.argsort(distance, kind="stable")[:count])
        assert np.array_equal(hamming_candidates(bits, query, count, np.arange(n)), reference), count


def test_hamming_candidates_break_ties_by_item_whatever_the_row_order() -> None:
    """A view holds the summary rung's rows first (``view_rows.view_order``), not in item order: the candidates
    are still the rows of the items an item-ordered scan picks, ties at the cut included, in item order."""
    rng = np.random.default_rng(11)
    n, words = 3 * HAMMING_BLOCK + 99, 6
    bits = rng.integers(0, 2**63, (words, n), dtype=np.uint64)
    bits[:, 500:900] = bits[:, 3:4]  # 401 rows at one distance: the cut falls inside them
    query = bits[:, 3].copy()
    query[0] ^= np.uint64(0b11)
    items = np.arange(n) * 2 + 7
    moved = np.concatenate([np.arange(600, n), np.arange(600)])  # rows 600.. first, as the summary rung's would be
    for count in (1, 150, 399, 1000):
        reference = items[hamming_candidates(bits, query, count, items)]
        got = hamming_candidates(np.ascontiguousarray(bits[:, moved]), query, count, items[moved])
        assert np.array_equal(items[moved][got], reference), count


def _reference(bits: np.ndarray, query: np.ndarray, count: int) -> np.ndarray:
    distance = np.unpackbits((bits ^ query[:, None]).T.copy().view(np.uint8), axis=1).sum(axis=1)
    return np.sort(np.argsort(distance, kind="stable")[:count])


def test_hamming_candidates_for_any_width_with_the_nearest_rows_last() -> None:
    """Any number of words (the counts are summed in bytes three words at a time; rows with every bit different
    would wrap a byte summing four), and rows ordered farthest first, so the bound on the cut tightens block after
    block and early blocks counted distances past it."""
    rng = np.random.default_rng(5)
    n = 4 * HAMMING_BLOCK + 321
    for words in (1, 2, 4, 6, 7, 12):
        bits = rng.integers(0, 2**63, (words, n), dtype=np.uint64)
        query = rng.integers(0, 2**63, words, dtype=np.uint64)
        bits[:, :3] = ~query[:, None]
        distance = np.unpackbits((bits ^ query[:, None]).T.copy().view(np.uint8), axis=1).sum(axis=1)
        bits = np.ascontiguousarray(bits[:, np.argsort(-distance, kind="stable")])
        for count in (1, 700, HAMMING_BLOCK + 5, n - 1, n + 10):
            assert np.array_equal(
                hamming_candidates(bits, query, count, np.arange(n)), _reference(bits, query, count)
            ), (
                words,
                count,
            )


def test_centring_in_place_gives_the_same_values() -> None:
    """``nearest`` centres its restored rows in place: the same float32 arithmetic as a fresh array, and a
    fresh, wider array where the centres are wider than the rows (writing into the rows would round)."""
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((200, 384)).astype(np.float32)
    which = rng.integers(0, 3, 200).astype(np.int16)
    for dtype in (np.float32, np.float64):
        centres = Centres(rng.standard_normal((3, 384)).astype(dtype), ("de", "en", "tr"))
        fresh = centres.centred(rows, which)
        mine = rows.copy()
        assert np.array_equal(centres.centred(mine, which, in_place=True), fresh)
        assert fresh.dtype == np.result_type(rows, centres.vectors)
