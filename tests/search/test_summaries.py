"""What the summary vector of a page is made of: title, summary, then the page's headings in order."""

from __future__ import annotations

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.embedding import summary_passages
from sentinel.search.summaries import excerpts_of_entries
from tests.support.vault import WriteVault

PAGES = {
    "notes/Garden.md": "---\ndescription: How I keep the vegetable garden.\n---\n## Soil\n\nCompost every spring.\n\n"
    "## Water\n\nWater tomatoes in the morning.\n\n### Drip lines\n\nCheck them in May.\n",
    "notes/Plain.md": "No headings here. Just one line.\n",
}


def test_the_summary_passage_carries_the_headings_in_page_order(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    by_path = {path: text for text, path in summary_passages(db).items()}
    assert by_path["notes/Garden.md"] == "Garden\n\nHow I keep the vegetable garden.\n\nSoil; Water; Drip lines"
    assert by_path["notes/Plain.md"] == "Plain\n\nNo headings here. Just one line."


def test_a_renamed_heading_changes_the_passage_so_its_vector_is_made_again(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    before = set(summary_passages(db))
    garden = settings.vault / "notes/Garden.md"
    garden.write_text(garden.read_text().replace("## Water", "## Watering"), encoding="utf-8")
    sync(settings, db)
    changed = set(summary_passages(db)) - before
    assert changed == {"Garden\n\nHow I keep the vegetable garden.\n\nSoil; Watering; Drip lines"}


def _chat(turns: int) -> str:
    lines = [f"- **{'Ana' if i % 2 else 'Sam'}:** turn number {i} of our chat" for i in range(turns)]
    return "# Chat with Ana\n\n" + "\n".join(lines)


def test_only_a_page_that_opens_with_entries_has_its_excerpt_damped(vault_settings: WriteVault) -> None:
    # The summary leg's damped vote is for pages whose excerpt is a few entries (a chat log's first turns), not
    # for prose pages without a description: their opening sentences say what the page is about.
    settings = vault_settings(
        {
            "Chats/Ana.md": _chat(12),
            "Chats/Described.md": "---\ndescription: Planning the trip with Ana.\n---\n" + _chat(12),
            "Help/Prose.md": "# Page preview\n\nPage preview shows a note when you hover over its link.\n",
            "Help/Short list.md": "# Steps\n\n- open settings\n- pick a theme\n\nThen restart.\n",
        }
    )
    db = open_index(settings)
    sync(settings, db)
    assert excerpts_of_entries(db, ["Chats/Ana.md", "Chats/Described.md", "Help/Prose.md", "Help/Short list.md"]) == {
        "Chats/Ana.md"
    }
