"""The view's pages are columns, not a dict a fact: lookups answer what the dicts answered, and a page costs
a few dozen bytes beside its path.

Why: at 1M pages the dicts held ~266 MB of the search process (docs/scale.md, "Stop 47: memory at 1M"). The
view's pages after in-place refreshes are compared with a whole load in tests/search/test_view.py.
"""

from __future__ import annotations

import dataclasses
import gc
import sys

import numpy as np
import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import view_pages, view_rows
from sentinel.search.view_pages import Pages
from tests.support.vault import WriteVault

PATHS = ["notes/Tomatoes.md", "notes/Kites.md", "wiki/Çay.md", "sources/日本.md", "notes/Piano.md"]


def _pages() -> Pages:
    return Pages.of([4, 9, 11, 20, 31], PATHS, [3, 0, 1, 2, 5], [True, False, True, True, False], [7, 0, 8, 7, 0], {})


def test_lookups_answer_what_a_dict_answers() -> None:
    pages = _pages()
    rowid_of = dict(zip(PATHS, [4, 9, 11, 20, 31], strict=True))
    assert list(pages) == PATHS and len(pages) == 5
    assert all(pages.rowid(p) == r and p in pages for p, r in rowid_of.items())
    assert pages.rowid("notes/Nope.md") is None and "notes/Nope.md" not in pages and 4 not in pages
    assert pages.rowids_of(["wiki/Çay.md", "x.md", "notes/Tomatoes.md"]).tolist() == [11, -1, 4]
    assert [pages.path(r) for r in (31, 4, 20, 5)] == ["notes/Piano.md", "notes/Tomatoes.md", "sources/日本.md", None]
    assert pages.paths_of([20, 3, 9]) == ["sources/日本.md", "notes/Kites.md"]
    assert (pages.with_chunks, pages.chunk_total, pages.summary_pages) == (4, 11, 3)
    assert sorted(pages.with_passages({7})) == ["notes/Tomatoes.md", "sources/日本.md"]


def test_pages_dropped_and_joined_equal_the_pages_read_so() -> None:
    pages = _pages()
    dropped = pages.without(["notes/Kites.md", "notes/Nope.md", "sources/日本.md"])
    assert list(dropped) == ["notes/Tomatoes.md", "wiki/Çay.md", "notes/Piano.md"]
    assert dropped.path(31) == "notes/Piano.md" and dropped.rowid("sources/日本.md") is None
    back = dropped.joined(Pages.of([20, 9], ["sources/日本.md", "notes/Kites.md"], [2, 0], [True, False], [7, 0], {}))
    assert back == pages and back.path(9) == "notes/Kites.md"  # rows out of rowid order: found all the same
    renamed = pages.joined(Pages.of([40], ["notes/Kites.md"], [1], [False], [0], {"notes/Kites.md": 2.0}))
    assert renamed.rowid("notes/Kites.md") == 40 and renamed.path(9) is None and len(renamed) == 5
    assert renamed.pending == {"notes/Kites.md": 2.0} and pages.pending == {}


def test_paths_of_the_same_hash_are_told_apart_by_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(view_pages, "_key", lambda path: 12345)  # every key the same: only the paths differ
    collided = _pages()
    assert [collided.rowid(p) for p in PATHS] == [4, 9, 11, 20, 31] and collided.rowid("notes/Nope.md") is None
    assert collided.rowids_of(PATHS).tolist() == [4, 9, 11, 20, 31]


def _deep_bytes(root: object) -> int:
    """Bytes an object holds, with everything it refers to (arrays by their buffers)."""
    seen, stack, total = set(), [root], 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)  # an array's buffer with it when it owns one; else its base's
        stack.extend([*gc.get_referents(obj), obj.base] if isinstance(obj, np.ndarray) else gc.get_referents(obj))
    return total


def test_a_views_pages_cost_a_few_dozen_bytes_each_beside_their_paths(vault_settings: WriteVault) -> None:
    files = {f"notes/topic {n // 50}/Page {n}.md": f"# Page {n}\n\nAbout thing {n}.\n" for n in range(600)}
    settings = vault_settings(files)
    db = open_index(settings)
    sync(settings, db)
    read = view_rows.read(db, 0, False, None).pages
    assert sorted(read) == sorted(files) and sorted(read.pending) == sorted(files)  # no vectors: every page waits
    pages = dataclasses.replace(read, pending={})  # a dict of the pages waiting, empty once embedded: not counted
    pages.rowid(""), pages.path(0)  # the lookups' own sorts, held from the first query on
    per_page = (_deep_bytes(pages) - sum(len(p.encode()) for p in files)) / len(files)
    assert per_page < 60  # four dicts (path -> rowid, chunks, passage; rowid -> path): ~290 bytes a page
    db.close()
