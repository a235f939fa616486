"""The vault's statements of sameness and the pointer gate, each on examples of its own: what each rule takes as
the vault saying "one thing", and the look-alikes it must not take."""

from __future__ import annotations

import pytest

from sentinel.gates import pointed, stated_same

PERMALINKS = {
    "de/Erweiterungen/Schnellauswahl.md": "plugins/quick-switcher",
    "en/Plugins/Quick switcher.md": "plugins/quick-switcher",
    "en/Plugins/Command palette.md": "plugins/command-palette",
    "en/Other/Quick switcher copy.md": "plugins/quick-switcher",  # same folder: not a translation
}


@pytest.mark.parametrize(
    ("name", "name_page", "title_page", "stated"),
    [
        ("Graph View", "en/Plugins/Graph view.md", "en/Plugins/Graph view.md", True),  # by its file name
        ("Plugins/Graph view", "en/Plugins/Graph view.md", "en/Plugins/Graph view.md", True),  # by its path
        ("Metadata", "en/Properties.md", "en/Properties.md", False),  # only through an alias the page declares
        ("Graph", None, "en/Plugins/Graph view.md", False),
        ("Graph view", "de/Graph view.md", "en/Plugins/Graph view.md", False),  # two pages
    ],
)
def test_reached_by_both_names(name: str, name_page: str | None, title_page: str, stated: bool) -> None:
    assert stated_same.reached_by_both(name, name_page, title_page).passed is stated


def test_parallel_pages_are_one_document_in_two_folders() -> None:
    def parallel(a: str | None, b: str) -> bool:
        return stated_same.parallel_pages(a, b, PERMALINKS).passed

    assert parallel("de/Erweiterungen/Schnellauswahl.md", "en/Plugins/Quick switcher.md")
    assert not parallel("de/Erweiterungen/Schnellauswahl.md", "en/Plugins/Command palette.md")
    assert not parallel("en/Other/Quick switcher copy.md", "en/Plugins/Quick switcher.md")
    assert not parallel(None, "en/Plugins/Quick switcher.md")
    assert not parallel("de/Ohne Permalink.md", "en/Plugins/Quick switcher.md")


def test_a_declared_alias_speaks_for_its_spellings_only_where_the_name_reaches_nothing() -> None:
    declared = ["Obsidian settings"]
    assert stated_same.declared_alias("Obsidian setting", None, declared).passed
    assert stated_same.declared_alias("obsidian-settings", None, declared).passed
    assert not stated_same.declared_alias("Obsidian hotkeys", None, declared).passed
    assert not stated_same.declared_alias("Obsidian setting", "notes/Obsidian setting.md", declared).passed


def test_a_piped_link_states_a_spelling_not_another_word() -> None:
    assert stated_same.shown_as("core plugin", "Core plugins", ["core plugin", "plugins"]).passed
    assert not stated_same.shown_as("core plugin", "Core plugins", ["plugins"]).passed
    # [[Properties|metadata]]: prose showing a broader word, not another name of the page
    assert not stated_same.shown_as("Metadata", "Properties", ["metadata"]).passed


@pytest.mark.parametrize(
    ("name", "title", "points"),
    [
        ("Pop out windows", "Pop-out windows", True),
        ("daily note", "Daily notes", True),
        ("Datei-Explorer", "Dateiexplorer", True),
        ("Filtre", "Filtreler", True),
        ("Einstellungen", "Settings", False),
        ("Templater plugin", "Templates plugin", False),
    ],
)
def test_spellings_point_at_a_pair(name: str, title: str, points: bool) -> None:
    assert pointed.spelling_of(name, title).passed is points


def test_alignment_points_at_the_pages_it_names_only() -> None:
    assert pointed.aligned("en/Settings.md", {"en/Settings.md", "es/Configuración.md"}).passed
    assert not pointed.aligned("en/Hotkeys.md", {"en/Settings.md"}).passed
    assert not pointed.aligned("en/Settings.md", set()).passed


def test_a_translation_link_joins_two_pages_either_way() -> None:
    counterparts = {"de/Einstellungen.md": {"en/Settings.md"}, "en/Settings.md": {"de/Einstellungen.md"}}
    assert stated_same.translation_link("de/Einstellungen.md", "en/Settings.md", counterparts).passed
    assert stated_same.translation_link("en/Settings.md", "de/Einstellungen.md", counterparts).passed
    assert not stated_same.translation_link("de/Einstellungen.md", "en/Hotkeys.md", counterparts).passed
    assert not stated_same.translation_link(None, "en/Settings.md", counterparts).passed
