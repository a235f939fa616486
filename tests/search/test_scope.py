"""The scope boundary (seed 003, sentinel.search.scope): personal pages stay out of queries that do not ask.

The diary page repeats the work question's words, so without the boundary it ranks first (asserted below with
the boundary turned off); a folder named in the settings is a scope too.
"""

from __future__ import annotations

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import search
from sentinel.search.modes import answer
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.listing import listing
from sentinel.tools.read import read
from sentinel.tools.search import search as search_tool
from tests.support.vault import WriteVault

PAGES = {
    "notes/Migration plan.md": "# Migration plan\n\nThe database migration runs on Friday.",
    "notes/Diary.md": "---\nscope: personal\n---\n# Diary\n\nDatabase migration, database migration: the "
    "database migration made me anxious today.",
    "Journal/Monday.md": "# Monday\n\nDreamt of the database migration again.",
    "notes/Shared.md": "---\nscope: [work, personal]\n---\n# Shared\n\nA database migration checklist.",
}
PERSONAL = {"notes/Diary.md", "Journal/Monday.md", "notes/Shared.md"}


def _settings(vault_settings: WriteVault, **search: object) -> Settings:
    settings = vault_settings(PAGES)
    settings.search = settings.search.model_copy(update={"scope_folders": {"Journal": "personal"}, **search})
    sync(settings, open_index(settings))
    return settings


def _paths(settings: Settings, query: str, mode: str = "semantic") -> tuple[list[str], list[str]]:
    found = answer(open_index(settings), settings, None, mode, query, limit=10)  # type: ignore[arg-type]
    return [h.path for h in found.hits], found.notes


def test_a_general_query_leaves_personal_pages_out_and_says_so(vault_settings: WriteVault) -> None:
    settings = _settings(vault_settings)
    paths, notes = _paths(settings, "database migration")
    assert paths == ["notes/Migration plan.md"]
    assert any("3 page(s) of scope personal left out" in n and "scope:personal" in n for n in notes), notes
    # Without the boundary the diary, which repeats the words, comes first.
    open_settings = _settings(vault_settings, kept_out_scopes=[])
    paths, notes = _paths(open_settings, "database migration")
    assert paths[0] == "notes/Diary.md" and set(paths) == PERSONAL | {"notes/Migration plan.md"}
    assert not any("left out" in n for n in notes)


def test_a_query_that_asks_for_the_scope_gets_it_folder_included(vault_settings: WriteVault) -> None:
    settings = _settings(vault_settings)
    paths, _ = _paths(settings, "database migration scope:personal")
    assert set(paths) == PERSONAL
    assert set(_paths(settings, "scope:personal", "facet")[0]) == PERSONAL
    assert set(_paths(settings, "scope:Personal", "facet")[0]) == PERSONAL


def test_every_mode_and_the_tools_keep_the_boundary(vault_settings: WriteVault) -> None:
    settings = _settings(vault_settings)
    assert _paths(settings, "diary", "quick")[0] == []
    assert _paths(settings, "monday", "quick")[0] == []
    assert _paths(settings, "database migration role:note", "facet")[0] == ["notes/Migration plan.md"]
    assert _paths(settings, "role:note", "facet")[0] == ["notes/Migration plan.md"]
    ctx = ToolContext(settings=settings)
    found = search_tool(ctx, "database migration").body
    assert "Migration plan" in found and "Diary" not in found and "Monday" not in found
    assert listing(ctx).body.splitlines()[1:] == ["notes/Migration plan.md"]
    assert listing(ctx, folder="Journal").body.startswith("no pages")
    assert listing(ctx, filter="scope:personal").body.splitlines()[1:] == sorted(PERSONAL)
    # A page read by its path still opens: a retrieval boundary, not a privacy boundary.
    assert read(ctx, "notes/Diary.md", depth="page").body.count("anxious") == 1
    assert search(open_index(settings), settings, None, "Diary").hits == []


def test_a_widened_setting_lets_every_query_reach_the_scope(vault_settings: WriteVault) -> None:
    settings = _settings(vault_settings, kept_out_scopes=["investment"])
    assert set(_paths(settings, "database migration")[0]) == PERSONAL | {"notes/Migration plan.md"}
    assert _paths(settings, "diary", "quick")[0] == ["notes/Diary.md"]
