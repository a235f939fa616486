"""The summary rung names pages by the shortest link that reaches them; ``read`` takes that name back.

Real index, real tools, no model: the name must lead ``read`` to the very page the hit was about, however
many pages share a file name.
"""

from __future__ import annotations

import re

import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import search
from sentinel.search.summaries import LINE_CHARS, LINE_WORDS, line
from sentinel.tools.context import ToolContext
from sentinel.tools.registry import call_tool
from tests.support.vault import WriteVault

PAGES = {
    "en/Plugins/Canvas.md": "# Canvas\n\nCanvas plugin in English: draw cards.",
    "de/Plugins/Canvas.md": "# Canvas\n\nCanvas-Erweiterung auf Deutsch: Karten zeichnen.",
    "Canvas.md": "# Canvas\n\nCanvas at the vault root.",
    "en/Sync/Canvas/Canvas.md": "# Canvas\n\nCanvas sync notes.",
    "notes/Kettle.md": "# Kettle\n\nThe kettle boils water. It also whistles loudly when done.",
}


@pytest.fixture
def ctx(vault_settings: WriteVault) -> ToolContext:
    settings = vault_settings(PAGES)
    sync(settings, open_index(settings))
    return ToolContext(settings=settings)


def test_each_name_reaches_its_own_page_through_read(ctx: ToolContext) -> None:
    found = search(ctx.reader(), ctx.settings, None, "canvas", limit=10, all_languages=True)  # en/ and de/ copies
    names = {h.path: h.name for h in found.hits}
    assert names == {
        "Canvas.md": "Canvas",  # Obsidian's rule: the shortest path wins the bare name
        "en/Plugins/Canvas.md": "en/Plugins/Canvas",
        "de/Plugins/Canvas.md": "de/Plugins/Canvas",
        "en/Sync/Canvas/Canvas.md": "Canvas/Canvas",
    }
    for path, name in names.items():
        outline = call_tool(ctx, "read", {"path": name})
        assert f"{path}:" in outline.splitlines()[0], (name, outline)
    assert search(ctx.reader(), ctx.settings, None, "kettle").hits[0].name == "Kettle"  # a unique name alone


def test_the_summary_rung_shows_names_and_one_short_line(ctx: ToolContext) -> None:
    text = call_tool(ctx, "search", {"query": "kettle"})
    # the page's date (here the file's) goes with its line, so "when ..." can be answered from it
    assert re.search(r"\[excerpt\] Kettle \(\d{4}-\d{2}-\d{2}\): The kettle boils water\. …", text), text
    assert "notes/Kettle.md" not in text


@pytest.mark.parametrize(
    "summary",
    [
        "One sentence.",
        "A first sentence. A second one.",
        "word " * 40,
        "x" * 200,
        "知识管理系统的设计原则。" * 5,
        "Lang genug, um bei zwölf Wörtern abgeschnitten zu werden, aber nur im ersten Satz davon.",
    ],
)
def test_a_summary_line_is_one_short_sentence_and_says_when_cut(summary: str) -> None:
    shown = line(summary)
    assert len(shown.split()) <= LINE_WORDS + 1 and len(shown) <= LINE_CHARS + 2
    assert shown == summary.strip() or shown.endswith(" …")
    assert summary.startswith(shown.removesuffix(" …"))
