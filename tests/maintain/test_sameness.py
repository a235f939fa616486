"""The vault's statements of sameness and the evidence that points the model at a pair, in a pass.

A small vault in two language folders, as the help vault is: ``en/Guide.md`` and ``de/Anleitung.md`` share a
permalink (one document, two languages), and the German one links ``[[Einstellungen]]``, a page the German folder
lacks, where the English one links ``[[Settings]]``. The next link of each reaches one document (``Hotkeys``,
``Tastenkürzel``), so the alignment is anchored. The model only confirms that pointer; a yes-machine and a
no-machine merge nothing; the vault's own statements (a piped spelling, parallel titles) merge with any model.
"""

from __future__ import annotations

import json

import frontmatter
import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.maintain import pass_yield
from sentinel.maintain.health import health_line
from sentinel.maintain.sameness import VaultEvidence
from sentinel.paths import ledger_dir
from sentinel.search.modes import quick
from tests.support.maintain_pass import RunPass, ScriptedModel, yes_machine
from tests.support.name_pairs import LabelledPair, decide_all
from tests.support.vault import WriteVault

PARALLEL = {
    "en/Settings.md": "---\npermalink: settings\n---\nSettings let you change how the app behaves.\n",
    "en/Hotkeys.md": "---\npermalink: hotkeys\n---\nHotkeys are keyboard shortcuts for commands.\n",
    "de/Tastenkürzel.md": "---\npermalink: hotkeys\n---\nTastenkürzel sind Tastaturkürzel für Befehle.\n",
    "en/Guide.md": "---\npermalink: guide\n---\nOpen [[Settings]] first. Then set your [[Hotkeys]].\n",
    "de/Anleitung.md": (
        "---\npermalink: guide\n---\nÖffne zuerst die [[Einstellungen]]. Dann lege deine [[Tastenkürzel]] fest.\n"
    ),
}
CONFIRMS = ScriptedModel(same=lambda a, b: "same")  # "same" both ways, "no" to the contrary


def test_a_translation_parallel_pages_align_becomes_an_alias_in_the_other_language(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(PARALLEL)
    model = ScriptedModel(same=lambda a, b: "same")
    done = run_maintain(settings, model)
    page = frontmatter.loads((settings.vault / "en/Settings.md").read_text(encoding="utf-8"))
    assert page.metadata["aliases"] == ["Einstellungen"]
    # Confirmed, not decided, by the model: same, swapped, contrary; the pointer is the alignment.
    assert model.asked_about("same") == ["Einstellungen|Settings", "Settings|Einstellungen"]
    assert model.asked_about("contrary") == ["Einstellungen|Settings"]
    assert done.report.work.merged_by == {"aligned": 1}
    # A German query reaches the English page; the German link resolves there.
    hits = quick(done.db, settings, "Einstellungen", "summary", 0, 5).hits
    assert [hit.path for hit in hits][:1] == ["en/Settings.md"]
    reaches = done.db.execute("SELECT resolved FROM links WHERE target = 'Einstellungen'").fetchone()[0]
    assert reaches == "en/Settings.md"


@pytest.mark.parametrize(("machine", "stopped_by"), [("yes", "contrary"), ("no", "model")])
def test_the_yes_machine_and_the_no_machine_do_not_merge_what_only_points(
    vault_settings: WriteVault, run_maintain: RunPass, machine: str, stopped_by: str
) -> None:
    model = yes_machine() if machine == "yes" else ScriptedModel(same=lambda a, b: "different")
    settings = vault_settings(PARALLEL)
    done = run_maintain(settings, model)
    assert done.report.aliases_written == 0
    assert "aliases" not in frontmatter.loads((settings.vault / "en/Settings.md").read_text()).metadata
    assert done.report.work.deferred_by.get(stopped_by, 0) >= 1, done.report.work


def test_a_pair_nothing_points_at_is_never_asked(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    """Without the parallel pages, Einstellungen and Settings share nothing: no pointer, no question."""
    settings = vault_settings(
        {
            "en/Settings.md": "Settings let you change how the app behaves.\n",
            "de/Anleitung.md": "Öffne zuerst die [[Einstellungen]] der App.\n",
        }
    )
    model = ScriptedModel(same=lambda a, b: "same")
    done = run_maintain(settings, model)
    assert model.asked_about("same") == [] and done.report.aliases_written == 0


def test_a_piped_spelling_merges_without_asking(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    """The writer showed the Core plugins page as "core plugin" and also linked "core plugin": the vault's own
    statement that the two spellings are one page, decided whatever the model says."""
    settings = vault_settings(
        {
            "notes/Core plugins.md": "# Core plugins\n\nThey ship with the app.\n",
            "notes/a.md": "Every [[Core plugins|core plugin]] can be turned off.\n",
            "notes/b.md": "A [[core plugin]] ships with the app.\n",
        }
    )
    no_machine = ScriptedModel(same=lambda a, b: "different")
    done = run_maintain(settings, no_machine)
    page = frontmatter.loads((settings.vault / "notes/Core plugins.md").read_text(encoding="utf-8"))
    assert page.metadata["aliases"] == ["core plugin"]
    assert no_machine.asked_about("same") == [] and done.report.work.merged_by == {"shown_as": 1}


def test_a_spelling_of_a_declared_alias_merges_without_asking(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(
        {
            "notes/Settings.md": "---\naliases: [Obsidian settings]\n---\n# Settings\n\nChange the app.\n",
            "notes/b.md": "Open the [[Obsidian setting]] pane.\n",
        }
    )
    no_machine = ScriptedModel(same=lambda a, b: "different")
    done = run_maintain(settings, no_machine)
    page = frontmatter.loads((settings.vault / "notes/Settings.md").read_text(encoding="utf-8"))
    assert page.metadata["aliases"] == ["Obsidian settings", "Obsidian setting"]
    assert no_machine.asked_about("same") == [] and done.report.work.merged_by == {"declared_alias": 1}


def test_the_pass_yield_is_in_the_ledger_and_the_health_line(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {**PARALLEL, "notes/n.md": "We use [[dark matter]] and [[Git]] here.\n", "notes/m.md": "[[dark matter]]\n"}
    )
    done = run_maintain(settings, ScriptedModel(same=lambda a, b: "same"))
    work = done.report.work
    assert work.merges == 1 and work.pages_written == 0 and work.names_taken_up >= 3
    assert work.deferred_by.get("definition: never defined", 0) == 2  # "dark matter", "Git": mentioned only
    recorded = json.loads((ledger_dir(settings) / f"{done.report.ledger}.yield.json").read_text(encoding="utf-8"))
    assert recorded == work.as_dict() and pass_yield.last(done.db) == work
    assert "## What the pass did" in (ledger_dir(settings) / f"{done.report.ledger}.md").read_text(encoding="utf-8")
    line = health_line(done.db)
    assert f"last pass: {work.names_taken_up} names taken up, 0 concept pages written, 1 merge (aligned 1)" in line
    assert "deferred by definition: never defined 2" in line


def test_a_name_aligned_with_two_documents_points_at_neither(vault_settings: WriteVault) -> None:
    """``[[Einstellungen]]`` stands where one English page links Settings and another links Hotkeys: the
    alignment contradicts itself, so it points nowhere."""
    pages = {
        **PARALLEL,
        "en/Tips.md": "---\npermalink: tips\n---\nSee [[Hotkeys]]. Then [[Settings]].\n",
        "de/Tipps.md": "---\npermalink: tips\n---\nSiehe [[Einstellungen]]. Dann [[Settings]].\n",
    }
    settings = vault_settings(pages)
    db = open_index(settings)
    sync(settings, db)
    assert VaultEvidence.of(db).aligned.get("einstellungen") is None
    (settings.vault / "de/Tipps.md").unlink()  # without the contradicting page, the one placement stands
    sync(settings, db)
    assert VaultEvidence.of(db).aligned["einstellungen"] == {"en/Settings.md"}


def test_explicit_translation_links_make_parallel_pages_and_state_a_translation(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    """No permalinks: each German page names its English counterpart in its frontmatter. The two titles are one
    thing (stated: decided with no model), and the German page's unresolved link aligns as with a permalink."""
    settings = vault_settings(
        {
            "en/Settings.md": "Settings let you change how the app behaves.\n",
            "en/Hotkeys.md": "Hotkeys are keyboard shortcuts for commands.\n",
            "de/Tastenkürzel.md": '---\ntranslation: "[[Hotkeys]]"\n---\nTastenkürzel sind Tastaturkürzel.\n',
            "en/Guide.md": "Open [[Settings]] first. Then set your [[Hotkeys]].\n",
            "de/Anleitung.md": (
                '---\ntranslations: ["[[Guide]]"]\n---\nÖffne die [[Einstellungen]]. Dann [[Tastenkürzel]].\n'
            ),
        }
    )
    db = open_index(settings)
    sync(settings, db)
    evidence = VaultEvidence.of(db)
    assert evidence.counterparts["de/Tastenkürzel.md"] == {"en/Hotkeys.md"}
    assert evidence.aligned["einstellungen"] == {"en/Settings.md"}
    no_machine = ScriptedModel(same=lambda a, b: "different")
    pair = LabelledPair("translation", "Tastenkürzel", "Hotkeys", "")
    [(_, decision)] = decide_all(settings, db, no_machine.provider(), [pair])
    assert (decision.verdict, decision.gate) == ("same", "translation_link") and no_machine.asked == []
