"""The search view is updated in place from the change log, and always holds what a whole load would.

Real e5 vectors on a small vault; each edit is followed by the view a query would read, compared with a view
loaded whole from the same index.
"""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.migrations import SEARCH_CHANGES_KEPT, transaction
from sentinel.index.sync import sync, sync_paths
from sentinel.search import centres, embed_pending
from sentinel.search.vectors import VectorSet
from sentinel.search.view import SearchView, current_view, refreshed
from sentinel.settings import Settings
from tests.support.vault import WriteVault

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def settled_centres(monkeypatch: pytest.MonkeyPatch) -> None:
    """Language centres hold as a table grows, as they do past ``centres.SAMPLE`` vectors (a small table's
    refresh at every growth rewrites every row's bits: a whole load, rightly)."""
    monkeypatch.setattr(centres, "SAMPLE", 8)


TOPICS = ["tomatoes", "backups", "sourdough", "cycling", "tax returns", "piano", "beekeeping", "sailing"]


def _page(topic: str, n: int) -> str:
    return (
        f"# {topic.title()}\n\nNotes on {topic}, part {n}.\n\n## Practice\n\n"
        f"What I learned about {topic} this year, and what to try next.\n"
    )


PAGES = {f"notes/{t.title()}.md": _page(t, 0) for t in TOPICS} | {"sources/Article.md": _page("irrigation", 0)}


def _same_set(a: VectorSet | None, b: VectorSet | None, what: str) -> None:
    assert (a is None) == (b is None), what
    if a is None or b is None:
        return
    for field in ("items", "vector_ids", "centre_of", "bits", "scales"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), f"{what}.{field}"
    for one in (a, b):  # both views rescore from a mapped store (sentinel.search.store)
        assert one.mapped is not None and one.slots is not None, f"{what}: no mapped store"
    assert np.array_equal(a.mapped[a.slots], b.mapped[b.slots]), f"{what}: the mapped int8 rows"  # type: ignore[index]
    assert np.array_equal(a.centres.vectors, b.centres.vectors), f"{what}.centres"


def assert_as_whole(db: sqlite3.Connection, view: SearchView) -> None:
    """``view`` holds exactly what loading the index whole gives."""
    whole = refreshed(db, None)
    assert whole.made == "whole" and whole.generation == view.generation
    _same_set(view.chunks, whole.chunks, "chunks")
    _same_set(view.summary_role_chunks, whole.summary_role_chunks, "summary_role_chunks")
    _same_set(view.summaries, whole.summaries, "summaries")
    assert (view.chunk_count, view.page_count, view.identity) == (whole.chunk_count, whole.page_count, whole.identity)
    assert view.rows.pages == whole.rows.pages
    assert view.pages_pending_vectors() == whole.pages_pending_vectors()


def _chunk_ids(db: sqlite3.Connection, path: str) -> set[int]:
    return {r[0] for r in db.execute("SELECT id FROM chunks WHERE path = ?", (path,))}


def _embedded(view: SearchView) -> set[int]:
    return set(view.chunks.items.tolist()) if view.chunks is not None else set()


def _summarised(db: sqlite3.Connection, view: SearchView, path: str) -> bool:
    rowid = db.execute("SELECT rowid FROM pages WHERE path = ?", (path,)).fetchone()
    return view.summaries is not None and rowid is not None and rowid[0] in view.summaries.items.tolist()


def _ready(vault_settings: WriteVault, e5: OnnxEmbedder) -> tuple[Settings, sqlite3.Connection, SearchView]:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    view = current_view(db)
    assert view.made == "whole" and view.chunks is not None and view.summaries is not None
    return settings, db, view


def test_a_changed_page_is_re_read_in_place(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings, db, view = _ready(vault_settings, e5)
    rel = "notes/Tomatoes.md"
    old = _chunk_ids(db, rel)
    assert old <= _embedded(view)
    (settings.vault / rel).write_text(_page("tomatoes", 0) + "\nWater them in the morning, never at noon.\n")
    sync_paths(settings, db, [rel])
    edited = current_view(db)
    new = _chunk_ids(db, rel)
    assert edited.made == "in place"
    assert not old & _embedded(edited)  # the page's old chunk rows are gone from the view
    assert edited.pages_pending_vectors() == ([rel], 1)  # its changed chunk waits for a vector
    assert_as_whole(db, edited)
    embed_pending(db, e5, paths=[rel])
    embedded = current_view(db)
    assert embedded.made == "in place" and new <= _embedded(embedded)
    assert embedded.pages_pending_vectors() == ([], 0)
    assert_as_whole(db, embedded)


def test_an_added_page_joins_and_a_deleted_page_leaves(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings, db, view = _ready(vault_settings, e5)
    added = "notes/Chess.md"
    (settings.vault / added).write_text(_page("chess openings", 0))
    sync_paths(settings, db, [added])
    embed_pending(db, e5)  # the whole run: chunks and the page's summary passage
    grown = current_view(db)
    assert grown.made == "in place" and _chunk_ids(db, added) <= _embedded(grown)
    assert _summarised(db, grown, added) and grown.page_count == view.page_count + 1
    assert_as_whole(db, grown)
    gone = "notes/Piano.md"
    rowid = db.execute("SELECT rowid FROM pages WHERE path = ?", (gone,)).fetchone()[0]
    chunks = _chunk_ids(db, gone)
    (settings.vault / gone).unlink()
    sync_paths(settings, db, [gone])
    shrunk = current_view(db)
    assert shrunk.made == "in place" and not chunks & _embedded(shrunk)
    assert shrunk.summaries is not None and rowid not in shrunk.summaries.items.tolist()
    assert gone not in shrunk.rows.pages and shrunk.page_count == grown.page_count - 1
    assert_as_whole(db, shrunk)


def test_a_renamed_page_is_seen_under_its_new_name(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings, db, _ = _ready(vault_settings, e5)
    old, new = "notes/Sailing.md", "notes/Boats/Sailing dinghies.md"
    old_chunks = _chunk_ids(db, old)
    (settings.vault / "notes/Boats").mkdir()
    os.rename(settings.vault / old, settings.vault / new)
    sync(settings, db)
    renamed = current_view(db)
    assert renamed.made == "in place"
    assert old not in renamed.rows.pages and new in renamed.rows.pages
    assert not old_chunks & _embedded(renamed)
    assert renamed.pages_pending_vectors()[0] == [new]  # a new title is a new heading trail: embedded again
    assert_as_whole(db, renamed)
    embed_pending(db, e5)
    settled = current_view(db)
    assert settled.made == "in place" and _chunk_ids(db, new) <= _embedded(settled) and _summarised(db, settled, new)
    assert_as_whole(db, settled)


def test_many_small_edits_end_where_a_whole_load_does(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings, db, _ = _ready(vault_settings, e5)
    rng = random.Random(7)
    made = []
    for step in range(24):
        pages = sorted(r[0] for r in db.execute("SELECT path FROM pages"))
        rel = rng.choice(pages)
        action = rng.choice(["edit", "edit", "add", "delete", "rename", "analysis"])
        target: Path = settings.vault / rel
        touched = [rel]
        if action == "edit":
            target.write_text(target.read_text() + f"\nStep {step}: one more line about {rng.choice(TOPICS)}.\n")
        elif action == "add":
            rel = f"notes/Added {step}.md"
            (settings.vault / rel).write_text(_page(rng.choice(TOPICS), step))
            touched = [rel]
        elif action == "delete" and len(pages) > 4:
            target.unlink()
        elif action == "rename":
            touched.append(f"notes/Renamed {step}.md")
            os.rename(target, settings.vault / touched[-1])
        else:  # the maintenance pass stores a summary: the page's summary passage changes
            with transaction(db):
                db.execute(
                    """INSERT INTO analysis (path, hash, status, summary, analysed_at)
                       SELECT path, hash, 'ok', ?, 0 FROM pages WHERE path = ?
                       ON CONFLICT(path) DO UPDATE SET summary = excluded.summary""",
                    (f"A page about {rng.choice(TOPICS)}, summarised at step {step}.", rel),
                )
        sync_paths(settings, db, touched)
        made.append(current_view(db).made)
        if step % 3 == 0:
            embed_pending(db, e5, paths=touched)  # what the watcher does
        if step % 5 == 4:
            embed_pending(db, e5)  # the whole run: summaries, and drops unused vectors
        view = current_view(db)
        made.append(view.made)
        assert_as_whole(db, view)
    assert made.count("whole") <= 2, made  # only new language centres (the table grew) may force a whole load


def test_the_summary_rungs_chunks_are_the_first_rows_of_the_body_rungs(
    vault_settings: WriteVault, e5: OnnxEmbedder
) -> None:
    """Not a copy (46 bytes a chunk vector, ~440 MB at 1M pages): the same memory, the rows of summary-rung pages
    first, each part in item order, so a chunk is found by id wherever it lies, here and after an edit."""
    settings, db, view = _ready(vault_settings, e5)
    for step in range(2):
        table, body, summary = view.rows.chunks, view.chunks, view.summary_role_chunks
        assert body is not None and summary is not None
        first = table.summary_rows
        assert 0 < first < len(table)  # sources/Article.md is not a summary-rung page
        assert table.summary_role[:first].all() and not table.summary_role[first:].any()
        for field in ("items", "vector_ids", "centre_of", "bits", "scales", "slots"):
            assert np.shares_memory(getattr(summary, field), getattr(body, field)), field
        assert len(summary) == first and np.array_equal(summary.items, np.sort(summary.items))
        assert np.array_equal(table.items[first:], np.sort(table.items[first:]))
        wanted = np.concatenate([np.sort(table.items), [table.items.max() + 1]])
        at, held = table.rows_of_items(wanted)
        assert held[:-1].all() and not held[-1] and np.array_equal(table.items[at[:-1]], wanted[:-1])
        if step == 0:  # the other page edited, then a summary-rung page: its chunks' ids now come after the other's
            for rel in ("sources/Article.md", "notes/Piano.md"):
                (settings.vault / rel).write_text((settings.vault / rel).read_text() + "\nA new line on scales.\n")
                sync_paths(settings, db, [rel])
            embed_pending(db, e5)
            view = current_view(db)
            assert view.made == "in place"
            assert_as_whole(db, view)


def test_what_the_log_cannot_tell_loads_the_view_whole(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings, db, _ = _ready(vault_settings, e5)
    with transaction(db):
        db.execute("UPDATE search_generation SET n = n + 1")  # a change made by code, not logged
    assert current_view(db).made == "whole"
    rel = "notes/Cycling.md"
    for n in range(3):
        (settings.vault / rel).write_text(_page("cycling", n + 1))
        sync_paths(settings, db, [rel])
    assert current_view(db).made == "in place"
    (settings.vault / rel).write_text(_page("cycling", 9))
    sync_paths(settings, db, [rel])
    with transaction(db):  # the log pruned past the view's generation: the changes in between are unknown
        db.execute("DELETE FROM search_changes WHERE gen = (SELECT MAX(gen) FROM search_changes)")
    assert current_view(db).made == "whole"
    embed_pending(db, e5, reembed=True)
    after = current_view(db)
    assert after.made == "whole"
    assert_as_whole(db, after)


def test_the_log_stays_small(vault_settings: WriteVault) -> None:
    settings = vault_settings({f"notes/P{n}.md": f"# P{n}\n\nText {n}.\n" for n in range(40)})
    db = open_index(settings)
    sync(settings, db)
    with transaction(db):
        for _ in range(SEARCH_CHANGES_KEPT // 40 + 30):
            db.execute("UPDATE pages SET indexed_at = indexed_at + 1")
    kept, newest = db.execute("SELECT COUNT(*), MAX(gen) FROM search_changes").fetchone()
    assert newest > SEARCH_CHANGES_KEPT + 1000 and kept <= SEARCH_CHANGES_KEPT + 1000
