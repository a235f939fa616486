"""The view's id columns are as narrow as the index allows, and searching them gives what int64 columns gave.

Why narrow: at 9.5M chunk vectors each int64 column costs 38 MB more than an int32 one (docs/scale.md, "A view
that fits 1M pages"). The rows themselves are compared with a whole load in tests/search/test_view.py.
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from sentinel.search.view_columns import Filling, id_dtype, ids_like
from sentinel.search.view_rows import Table

INT32_MAX = int(np.iinfo(np.int32).max)


def test_ids_are_int32_while_the_largest_fits_and_int64_past_it() -> None:
    assert id_dtype(0) == np.int32
    assert id_dtype(INT32_MAX) == np.int32
    assert id_dtype(INT32_MAX + 1) == np.int64


def test_ids_searched_in_a_narrow_column_find_what_a_wide_one_finds() -> None:
    column = np.array([3, 8, 8, 20, INT32_MAX], dtype=np.int32)
    wanted = np.array([8, 2, 20, 21, INT32_MAX, INT32_MAX + 5, 2**32 + 8], dtype=np.int64)  # the last wraps to 8
    needles = ids_like(column, wanted)
    assert needles.dtype == np.int32  # numpy would widen the whole column at each search otherwise
    wide = column.astype(np.int64)
    counts_wide = np.searchsorted(wide, wanted, side="right") - np.searchsorted(wide, wanted, side="left")
    counts = np.searchsorted(column, needles, side="right") - np.searchsorted(column, needles, side="left")
    assert counts.tolist() == counts_wide.tolist() == [2, 0, 1, 0, 1, 0, 0]
    assert ids_like(wide, wanted).dtype == np.int64


def test_a_loads_page_of_every_chunk_is_let_go_once_pages_are_counted() -> None:
    """Every chunk's page and whether it lacks a vector (5 bytes a chunk, 52 MB at 1M pages) are needed to count
    pages only: held on through the rows' reordering they raised a 1M-page view load's peak."""
    chunks = 200_000
    filling = Filling(chunks, 0, np.dtype(np.int32))
    filling.count(np.repeat(np.arange(1, 20_001, dtype=np.int32), 10), np.arange(chunks) % 7 == 0)
    held = filling.every_page.nbytes + filling.lacks.nbytes
    pages, counts, pending = filling.per_page()
    assert len(pages) == 20_000 and set(counts.tolist()) == {10} and len(pending) == 20_000
    assert held == 5 * chunks and filling.every_page.nbytes + filling.lacks.nbytes == 0


def test_rows_in_view_order_already_are_left_with_no_copy_of_every_row() -> None:
    """The check that rows are in order already compared with an ``arange`` of every row (84 MB at 1M pages)."""
    rows = 1_000_000
    table = Table(
        np.arange(rows, dtype=np.int32),
        np.arange(rows, dtype=np.int32),
        np.zeros(rows, np.int16),
        np.zeros((1, rows), np.uint64),
        np.arange(rows, dtype=np.int32),
        np.arange(rows) < rows // 3,
        np.ones(rows, np.float32),
        np.arange(rows, dtype=np.int32),
    )
    tracemalloc.start()
    try:
        assert table.in_view_order() is table
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * rows + 2 * rows + 2**16  # the order (int64) and a bool a row; with the arange: 16 bytes a row
