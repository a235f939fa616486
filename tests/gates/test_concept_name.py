"""The concept-name gate: names, not sentences or markup."""

from __future__ import annotations

import pytest

from sentinel.gates import concept_name


@pytest.mark.parametrize("name", ["growth queue", "Obsidian Sync", "Node.js", "Note: growth", "gamma-ray burst"])
def test_names_pass(name: str) -> None:
    assert concept_name.well_formed([name]).passed


@pytest.mark.parametrize(
    "name",
    [
        "The pass works through the growth queue every night",  # a sentence
        "Open the settings. Then click",
        "[Obsidian Sync](https://obsidian.md/sync)",
        "[[Sync]]",
        "Sync|alias",
        "**bold**",
        "growth queue, and more",
        "1234",
        "x" * 61,
    ],
)
def test_non_names_are_dropped(name: str) -> None:
    verdict = concept_name.well_formed([name, "growth queue"])
    assert verdict.kept == ["growth queue"] and verdict.dropped == [name] and not verdict.passed
    assert verdict.reason.startswith("not a concept name:")
