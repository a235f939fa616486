"""The semantic rungs' per-query shortcuts give exactly what the paths they replace gave, and follow the view.

Each shortcut (a page's rows found through the rows sorted by page, a chunk's page and a page's path read from
the view instead of the index) is compared with the code it replaced; what they precompute is checked after
in-place refreshes. Real e5 vectors: the eval slice, and a small vault of its own for the refreshes. How much
time they save: docs/scale.md, "Per-query overheads".
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync, sync_paths
from sentinel.paths import SUMMARY_RUNG_ROLES
from sentinel.search import centres, embed_pending, ladder, search, view_rows
from sentinel.search.rerank import page_units
from sentinel.search.view import SearchView, current_view
from tests.search.test_first_stage import QUERIES
from tests.support.vault import Indexed, WriteVault

pytestmark = pytest.mark.slow


def _rows_by_scan(table: view_rows.Table, pages: np.ndarray) -> np.ndarray:
    """``Table.rows_of_pages`` as ``rerank.page_units`` did it: a scan of every row."""
    return np.flatnonzero(np.isin(table.page, pages))


def test_chunk_pages_from_the_view_are_the_index_s(eval_index: Indexed) -> None:
    db = eval_index.db
    rows = current_view(db).rows
    ids = [cid for (cid,) in db.execute("SELECT id FROM chunks")] + [10**9]  # and one the index does not hold
    from_index = ladder._chunk_pages(db, ids, None)
    assert ladder._chunk_pages(db, ids, rows) == from_index
    half = dataclasses.replace(rows, chunks=rows.chunks._take(np.arange(len(rows.chunks)) % 2 == 0))
    assert ladder._chunk_pages(db, ids, half) == from_index  # chunks without a vector are read from the index
    summary_roles = sorted(role.value for role in SUMMARY_RUNG_ROLES)
    roles = dict(db.execute("SELECT c.id, p.role FROM chunks c JOIN pages p ON p.path = c.path"))
    assert {cid: shown for cid, (_, shown) in from_index.items()} == {c: r in summary_roles for c, r in roles.items()}


def test_search_gives_what_the_replaced_paths_gave(
    eval_index: Indexed, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = eval_index.settings
    staged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": True})})
    calls = [
        (s, query, rung, every)
        for s in (settings, staged)
        for query in QUERIES
        for rung in ("summary", "body")
        for every in (False, True)
    ]

    def run() -> list[object]:
        return [search(eval_index.db, s, e5, q, rung=rung, all_languages=every) for s, q, rung, every in calls]  # type: ignore[arg-type]

    now = run()
    chunk_pages, paths_of = ladder._chunk_pages, ladder._paths_of
    monkeypatch.setattr(ladder, "_chunk_pages", lambda db, ids, rows: chunk_pages(db, ids, None))
    monkeypatch.setattr(ladder, "_paths_of", lambda db, ids, rows: paths_of(db, ids, None))
    monkeypatch.setattr(view_rows.Table, "rows_of_pages", _rows_by_scan)
    assert run() == now
    assert any(result.hits for result in now)  # type: ignore[attr-defined]


PAGES = {
    f"notes/{topic.title()}.md": f"# {topic.title()}\n\nNotes on {topic}.\n\n## Practice\n\nAbout {topic}.\n"
    for topic in ("tomatoes", "backups", "sourdough", "cycling", "piano", "sailing")
}


def _assert_lookups_right(view: SearchView) -> None:
    """Every page's rows and every rowid's path, as a scan of the view's own rows finds them."""
    table, pages = view.rows.chunks, view.rows.pages
    by_path = {path: pages.rowid(path) for path in pages}
    assert {rowid: pages.path(rowid) for rowid in by_path.values()} == {r: p for p, r in by_path.items()}
    rowids = np.array(sorted(by_path.values()), dtype=np.int64)
    for rowid in rowids:
        assert np.array_equal(table.rows_of_pages(rowid[None]), _rows_by_scan(table, rowid[None]))
    assert np.array_equal(table.rows_of_pages(rowids[::2]), _rows_by_scan(table, rowids[::2]))
    assert len(table.rows_of_pages(rowids[:0])) == 0


def test_the_lookups_follow_in_place_refreshes(
    vault_settings: WriteVault, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(centres, "SAMPLE", 4)  # as tests/search/test_store.py: refreshes stay in place
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    view = current_view(db)
    _assert_lookups_right(view)  # and now computed and held by this view's rows
    edits: list[tuple[str, str | None]] = [
        ("notes/Tomatoes.md", PAGES["notes/Tomatoes.md"] + "\n## Watering\n\nIn the morning, never at noon.\n"),
        ("notes/Kites.md", "# Kites\n\nA kite flies best in a steady wind.\n\n## Lines\n\nDyneema lines.\n"),
        ("notes/Piano.md", None),
        ("notes/Backups.md", PAGES["notes/Backups.md"] + "\n## Offsite\n\nOne copy away from home.\n"),
    ]
    for path, text in edits:
        before = view
        if text is None:
            (settings.vault / path).unlink()
        else:
            (settings.vault / path).write_text(text)
        sync_paths(settings, db, [path])
        embed_pending(db, e5)
        view = current_view(db)
        assert view.made == "in place" and view.rows.chunks is not before.rows.chunks
        _assert_lookups_right(view)
        owners, _ = page_units(db, view, [path])
        assert len(owners) == (0 if text is None else int(np.sum(view.rows.chunks.page == view.rows.pages.rowid(path))))
        assert (path in view.rows.pages) == (text is not None)
    db.close()
