"""Rescoring from the mapped int8 store ranks exactly as fetching the rows from SQLite, and stays right as the
view is refreshed in place.

Real e5 vectors: the eval slice (two languages) for the ranks, a small vault of its own for the refreshes.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from sentinel import paths
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync, sync_paths
from sentinel.search import centres, embed_pending, store
from sentinel.search.rerank import page_units
from sentinel.search.vectors import VectorSet, nearest, stored
from sentinel.search.view import SearchView, current_view
from sentinel.settings import Settings
from tests.search.test_first_stage import QUERIES
from tests.support.vault import Indexed, WriteVault

pytestmark = pytest.mark.slow


def _closed() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.close()
    return db


def _from_sqlite(vectors: VectorSet) -> VectorSet:
    return dataclasses.replace(vectors, mapped=None, slots=None)


def test_mapped_rescoring_ranks_as_the_sqlite_fetch(eval_index: Indexed, e5: OnnxEmbedder) -> None:
    view = current_view(eval_index.db)
    sets = [view.chunks, view.summary_role_chunks, view.summaries]
    for vectors in sets:
        assert vectors is not None and vectors.mapped is not None
    for query in QUERIES:
        vector = e5.embed([query], "query").vectors[0]
        for vectors in sets:
            assert vectors is not None
            rows = len(vectors)
            for candidates in (rows, max(10, rows // 4)):  # every row rescored, and Hamming candidates first
                mapped = nearest(_closed(), vectors, vector, rows, candidates)  # never reads the index
                fetched = nearest(eval_index.db, _from_sqlite(vectors), vector, rows, candidates)
                assert mapped == fetched and len(mapped) == min(rows, candidates), (query, vectors.table)
    paths_ = sorted(view.rows.pages)
    owners, centred = page_units(_closed(), view, paths_)  # the second stage's and families' vectors too
    sqlite_view = dataclasses.replace(view, chunks=_from_sqlite(view.chunks))  # type: ignore[arg-type]
    fetched_owners, fetched = page_units(eval_index.db, sqlite_view, paths_)
    assert owners == fetched_owners and np.array_equal(centred, fetched)
    assert len(owners) == len(view.chunks)  # type: ignore[arg-type]
    with pytest.raises(sqlite3.ProgrammingError):  # what the first call would do without the store
        nearest(_closed(), _from_sqlite(view.chunks), e5.embed([QUERIES[0]], "query").vectors[0], 10)  # type: ignore[arg-type]


def _assert_store_right(db: sqlite3.Connection, view: SearchView) -> None:
    """Every row of every set of ``view`` reads, from the mapped store, the int8 vector and scale in SQLite."""
    for vectors in (view.chunks, view.summary_role_chunks, view.summaries):
        assert vectors is not None and vectors.mapped is not None and vectors.slots is not None
        found = stored(db, vectors.table, vectors.vector_ids.tolist())
        ids = vectors.vector_ids.tolist()
        assert set(ids) == set(found), vectors.table
        expected = np.frombuffer(b"".join(found[i][0] for i in ids), dtype=np.int8).reshape(len(ids), vectors.dims)
        assert np.array_equal(vectors.mapped[vectors.slots], expected), vectors.table
        assert np.array_equal(vectors.scales, np.array([found[i][1] for i in ids], dtype=np.float32)), vectors.table


def _held(view: SearchView) -> list[bytes]:
    """What each set of ``view`` reads from its mapped store."""
    return [
        v.mapped[v.slots].tobytes()
        for v in (view.chunks, view.summaries)
        if v and v.mapped is not None and v.slots is not None
    ]


PAGES = {
    f"notes/{topic.title()}.md": f"# {topic.title()}\n\nNotes on {topic}.\n\n## Practice\n\nAbout {topic}.\n"
    for topic in ("tomatoes", "backups", "sourdough", "cycling", "piano", "sailing")
}


def _embedded(vault_settings: WriteVault, e5: OnnxEmbedder) -> tuple[Settings, sqlite3.Connection]:
    """PAGES written, indexed and embedded: their settings and an open index."""
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    return settings, db


@pytest.fixture(autouse=True)
def settled_centres(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(centres, "SAMPLE", 4)  # as tests/search/test_view.py: refreshes stay in place


def test_the_store_follows_in_place_refreshes(
    vault_settings: WriteVault, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, db = _embedded(vault_settings, e5)
    first = current_view(db)
    _assert_store_right(db, first)
    first_rows = _held(first)
    edited = "notes/Tomatoes.md"
    (settings.vault / edited).write_text(PAGES[edited] + "\nWater them in the morning, never at noon.\n")
    sync_paths(settings, db, [edited])
    embed_pending(db, e5)
    view = current_view(db)
    assert view.made == "in place" and view.rows.store is first.rows.store  # appended, not rebuilt
    _assert_store_right(db, view)
    (settings.vault / "notes/Piano.md").unlink()
    sync_paths(settings, db, ["notes/Piano.md"])
    view = current_view(db)
    assert view.made == "in place"
    _assert_store_right(db, view)
    assert _held(first) == first_rows  # the view a query may still hold is untouched by the appends
    monkeypatch.setattr(store, "COMPACT_SLACK", 0)  # dead rows are not tolerated past the live ones' count
    stores = [view.rows.store]
    for n in range(8):  # each edit leaves the page's old rows dead in the store
        (settings.vault / edited).write_text(PAGES[edited] + f"\nAnd in the evening, {n} times.\n")
        sync_paths(settings, db, [edited])
        embed_pending(db, e5)
        view = current_view(db)
        assert view.made == "in place"
        _assert_store_right(db, view)
        if view.rows.store is not stores[-1]:
            stores.append(view.rows.store)
            assert view.rows.store is not None
            assert view.rows.store.rows == len(view.rows.chunks) + len(view.rows.summaries)  # live rows only
    assert len(stores) > 1, "the store was never compacted"
    assert _held(first) == first_rows


def test_no_place_for_a_store_falls_back_to_sqlite(
    eval_index: Indexed, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sentinel.search.view import refreshed

    monkeypatch.setattr(paths, "search_store_dir", lambda index_file: tmp_path / "missing")
    view = refreshed(eval_index.db, None)
    assert view.rows.store is None and view.chunks is not None and view.chunks.mapped is None
    vector = e5.embed([QUERIES[1]], "query").vectors[0]
    with_store = current_view(eval_index.db).chunks
    assert with_store is not None and with_store.mapped is not None
    assert nearest(eval_index.db, view.chunks, vector, 50) == nearest(eval_index.db, with_store, vector, 50)


def test_a_view_held_across_a_fork_is_loaded_whole_with_a_store_of_its_own(
    vault_settings: WriteVault, e5: OnnxEmbedder
) -> None:
    settings, db = _embedded(vault_settings, e5)
    parent = current_view(db)
    assert parent.rows.store is not None
    held, rows = _held(parent), parent.rows.store.rows
    parent.rows.store.pid = -1  # what a forked child sees: the store was made by another process
    edited = "notes/Cycling.md"
    (settings.vault / edited).write_text(PAGES[edited] + "\nA new chain every 3,000 km.\n")
    sync_paths(settings, db, [edited])
    embed_pending(db, e5)
    child = current_view(db)
    assert child.made == "whole" and child.rows.store is not parent.rows.store
    assert parent.rows.store.rows == rows and _held(parent) == held  # nothing appended to the shared file
    _assert_store_right(db, child)


def _resident_kib(mapped: np.ndarray) -> int:
    """How much of ``mapped``'s mapping this process has resident (its line in /proc/self/smaps)."""
    start = mapped.__array_interface__["data"][0]
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line[:1] in "0123456789abcdef" and "-" in line.split()[0]:
            low, high = (int(x, 16) for x in line.split()[0].split("-"))
            inside = low <= start < high
        elif inside and line.startswith("Rss:"):
            return int(line.split()[1])
    raise AssertionError("the mapping is not in /proc/self/smaps")


def test_a_large_stores_rows_are_read_without_mapping_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows of a store larger than ``RESIDENT_BUDGET`` are read from its file, so none of its pages becomes
    resident in the process (at 1M pages a query's candidates, random rows, had mapped most of its 3.6 GB, and on
    Linux 6.18 one fault maps a whole large folio); the rows are the store's all the same, in the order asked. A
    store within the budget is read through its mapping, its pages resident as before."""
    dims, rows = 384, 16384  # 6 MiB
    made = store.VectorStore.create(str(tmp_path / "index.db"), dims)
    assert made is not None
    written = np.random.default_rng(1).integers(-127, 128, (rows, dims), dtype=np.int8)
    made.append(written.tobytes())
    mapped = made.mapped()
    assert mapped is not None
    everything = np.arange(rows)
    assert np.array_equal(store.gathered(mapped, everything), written)
    assert _resident_kib(mapped) >= rows * dims // 1024  # within the budget: every page read stays mapped
    monkeypatch.setattr(store, "RESIDENT_BUDGET", 1 << 20)
    mapped = made.mapped()  # a mapping of its own, nothing of it resident yet
    assert mapped is not None
    shuffled = np.random.default_rng(2).permutation(rows)
    for start in range(0, rows, 1000):
        part = shuffled[start : start + 1000]
        got = store.gathered(mapped, part)
        assert got.flags.writeable and np.array_equal(got, written[part])
    assert np.array_equal(store.gathered(mapped, shuffled), written[shuffled])  # past ``READ_BATCH`` rows
    assert store.gathered(mapped, shuffled[:0]).shape == (0, dims)
    assert _resident_kib(mapped) == 0
