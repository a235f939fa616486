"""How far the search legs have filled, part-way through embedding a small vault (real e5, real index).

The figures are checked against counts made straight from the index's tables (no search view), at three points:
nothing embedded, summaries part-way, summaries whole and chunks part-way; then on the search note, the
CLI and the API's health.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from sentinel.cli import app as cli_app
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.keys import Scope, create_key
from sentinel.paths import SUMMARY_RUNG_ROLES, keys_path
from sentinel.search import embed_pending, embedding, filling, search, summaries
from sentinel.settings import Settings
from services.api.app import create_app
from tests.support.servers import serve
from tests.support.vault import WriteVault

pytestmark = pytest.mark.slow

TOPICS = ["tomatoes", "backups", "sourdough", "cycling", "tax returns", "piano", "beekeeping", "sailing"]


def _page(topic: str) -> str:
    return (
        f"# {topic.title()}\n\nNotes on {topic}.\n\n## Practice\n\n"
        f"What I learned about {topic} this year, and what to try next.\n"
    )


PAGES = {f"notes/{t.title()}.md": _page(t) for t in TOPICS} | {
    "sources/Irrigation.md": _page("irrigation"),  # chunks, but no summary (not a summary-rung page)
}


def _batches(n: int) -> Callable[[], bool]:
    """An ``out_of_time`` that lets ``n`` batches through, then stops the run."""
    asked = iter(range(10**6))
    return lambda: next(asked) >= n


def _counted(db: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """(done, total) pages of each meaning leg, from the tables alone."""
    chunk_pages = db.execute(
        """SELECT COUNT(*), SUM(missing = 0) FROM (SELECT c.path, SUM(NOT EXISTS (SELECT 1 FROM chunk_vectors v
               WHERE v.text_hash = c.text_hash AND v.trail = c.trail)) AS missing FROM chunks c GROUP BY c.path)"""
    ).fetchone()
    roles = sorted(SUMMARY_RUNG_ROLES)
    pages = summaries.page_summaries(db, f"p.role IN ({','.join('?' * len(roles))})", roles)
    stored = {r[0] for r in db.execute("SELECT text FROM summary_vectors")}
    return {
        "chunks": (int(chunk_pages[1] or 0), int(chunk_pages[0])),
        "summaries": (sum(p.passage in stored for p in pages), len(pages)),
    }


def _figures(filled: filling.Filling) -> dict[str, tuple[int, int]]:
    return {leg.name: (leg.done, leg.total) for leg in filled.legs}


@pytest.fixture
def part_way(vault_settings: WriteVault, e5: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Summaries whole, chunks part-way (summaries are embedded first: one vector per page)."""
    monkeypatch.setattr(embedding, "BATCH", 3)  # small batches, so a run can stop between pages
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    assert _figures(filling.of_index(db)) == _counted(db) == {"chunks": (0, 9), "summaries": (0, 8)}

    embed_pending(db, e5, out_of_time=_batches(2))  # 6 of the 8 summaries, no chunk yet
    assert _figures(filling.of_index(db)) == _counted(db) == {"chunks": (0, 9), "summaries": (6, 8)}

    embed_pending(db, e5, out_of_time=_batches(3))  # the last 2 summaries, then 6 chunks
    counted = _counted(db)
    assert 0 < counted["chunks"][0] < 9 and counted["summaries"] == (8, 8)
    filled = filling.of_index(db)
    assert _figures(filled) == counted
    assert [leg.name for leg in filled.filling] == ["chunks"] and filled.waiting
    db.close()
    return settings


def test_part_way_the_search_note_gives_each_legs_figures(part_way: Settings, e5: OnnxEmbedder) -> None:
    db = open_index(part_way)
    done = _counted(db)["chunks"][0]
    found = search(db, part_way, e5, "what to try with sourdough")
    (note,) = [n for n in found.notes if n.startswith("meaning search is still filling")]
    assert f"chunks {done} of 9 pages ({done * 100 // 9}%), summaries 8 of 8 pages (100%); waiting: " in note
    assert "results may be thin" in note

    embed_pending(db, e5)  # the rest
    assert _figures(filling.of_index(db)) == _counted(db) == {"chunks": (9, 9), "summaries": (8, 8)}
    assert not filling.of_index(db).filling
    found = search(db, part_way, e5, "what to try with sourdough")
    assert not [n for n in found.notes if "still filling" in n]


def test_a_fresh_edit_names_its_page_as_waiting(part_way: Settings, e5: OnnxEmbedder) -> None:
    db = open_index(part_way)
    embed_pending(db, e5)
    (part_way.vault / "notes/Piano.md").write_text(_page("piano") + "\nScales every morning.\n", encoding="utf-8")
    sync(part_way, db)
    filled = filling.of_index(db)
    assert _figures(filled) == _counted(db) and filled.chunks.done == 8 and filled.waiting == ("notes/Piano.md",)
    (note,) = [n for n in search(db, part_way, e5, "piano scales").notes if "still filling" in n]
    assert "chunks 8 of 9 pages (88%)" in note and "waiting: notes/Piano.md (" in note


def test_the_cli_shows_the_legs(part_way: Settings) -> None:
    done = _counted(open_index(part_way))["chunks"][0]
    where = ["--vault", str(part_way.vault), "--index", str(part_way.index_path)]
    result = CliRunner().invoke(cli_app, ["index", "stats", "--json", *where])
    assert result.exit_code == 0, result.stdout
    legs = json.loads(result.stdout)["search"]
    assert legs["filling"] == ["chunks"]
    assert legs["chunks"]["pages_done"] == done and legs["chunks"]["pages"] == 9 and not legs["chunks"]["complete"]
    assert legs["summaries"] == {"pages_done": 8, "pages": 8, "complete": True} and legs["lexical"]["pages"] == 9

    result = CliRunner().invoke(cli_app, ["index", "stats", *where])
    assert f"{done} of 9 ({done * 100 // 9}%, filling)" in result.stdout
    assert "8 of 8 (100%, whole)" in result.stdout


def test_the_api_health_says_which_legs_are_filling(part_way: Settings) -> None:
    done = _counted(open_index(part_way))["chunks"][0]
    create_key(keys_path(part_way), Scope.READ, "test")
    with serve(create_app(part_way)) as url:
        legs = httpx.get(f"{url}/health").json()["search"]
    assert legs["filling"] == ["chunks"] and legs["chunks"]["pages_done"] == done


def test_the_health_figures_never_load_a_view(part_way: Settings, tmp_path: Path) -> None:
    """A copy of the index is a new index to this process: no view held, so no figures (and no load) until a
    search or the watcher loads one; then the held figures are the loaded ones."""
    copy = tmp_path / "copy.db"
    with sqlite3.connect(copy) as target:
        open_index(part_way).backup(target)
    db = open_index(part_way.model_copy(update={"index_path": copy}))
    assert filling.as_loaded(db) is None
    loaded = filling.of_index(db)
    assert filling.as_loaded(db) == loaded
