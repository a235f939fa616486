"""The view's id columns are as narrow as the index allows, and searching them gives what int64 columns gave.

Why narrow: at 9.5M chunk vectors each int64 column costs 38 MB more than an int32 one (docs/scale.md, "A view
that fits 1M pages"). The rows themselves are compared with a whole load in tests/search/test_view.py.
"""

from __future__ import annotations

import numpy as np

from sentinel.search.view_columns import id_dtype, ids_like

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
