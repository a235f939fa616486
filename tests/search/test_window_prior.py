"""The wording leg's window prior: a page of many prose windows, found by words it holds somewhere, yields to a
page whose one passage holds them (``SearchSettings.window_prior``); entries are not windows."""

from __future__ import annotations

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import search
from sentinel.search.lexical import windows_per_page
from sentinel.settings import Settings
from tests.support.vault import WriteVault

FILLER = (
    "The harbour keeps its moorings in rows along the old quay, and the harbour master walks them every morning. "
    "Boats are painted in the colours of their owners, tide tables hang in the chandlery window, and gulls wait "
    "on the bollards for the fishing boats to come in with the early catch. "
)
TOPICS = ["Moorings", "Chandlery", "Fishing fleet", "Tides", "Lighthouse", "Market", "Boatyard", "Slipway", "Quay"]


def _harbour_guide() -> str:
    """A long guide: one window per section, and one section that says "ferry timetable" several times."""
    sections = [f"## {topic}\n\n{FILLER * 5}\n" for topic in TOPICS]
    sections.insert(
        3,
        "## Ferries\n\nAsk at the ferry desk for the ferry timetable: the ferry timetable changes with the "
        "ferry season, and each ferry has its own timetable.\n",
    )
    return "# Harbour guide\n\n" + "\n".join(sections)


CROSSING = (
    "# Calais crossing\n\nThe morning ferry to Calais leaves at 07:40 from berth 3; its timetable is pinned on the "
    "board at the foot of the pier, beside the ticket office, and the evening ferry leaves at 19:10.\n\n" + FILLER
)
CHAT = "# Chat with Ana\n\n" + "".join(f"- **Ana:** turn {i} about the picnic on Sunday\n" for i in range(12))


def _vault(vault_settings: WriteVault) -> Settings:
    return vault_settings({"Harbour guide.md": _harbour_guide(), "Calais crossing.md": CROSSING, "Chat.md": CHAT})


def _order(settings: Settings, prior: float) -> list[str]:
    variant = settings.model_copy(update={"search": settings.search.model_copy(update={"window_prior": prior})})
    db = open_index(variant)
    sync(variant, db)
    found = search(db, variant, None, "ferry timetable", rung="body", limit=3)
    db.close()
    return [hit.path for hit in found.hits]


def test_a_page_of_many_windows_yields_to_the_page_whose_passage_holds_the_words(vault_settings: WriteVault) -> None:
    settings = _vault(vault_settings)
    # Without the prior the guide's one ferry section outranks the crossing page on wording alone ...
    assert _order(settings, 0.0)[0] == "Harbour guide.md"
    # ... with it (the shipped setting) the page that is about the crossing comes first.
    assert settings.search.window_prior > 0
    assert _order(settings, settings.search.window_prior)[0] == "Calais crossing.md"


def test_only_prose_windows_are_counted(vault_settings: WriteVault) -> None:
    settings = _vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    counts = windows_per_page(db, ["Harbour guide.md", "Calais crossing.md", "Chat.md"])
    db.close()
    assert counts["Harbour guide.md"] >= len(TOPICS)
    assert counts["Calais crossing.md"] == 1
    assert "Chat.md" not in counts  # twelve turns are entries, each one line: no window to count
