"""The review ledger: what a pass wrote, with the evidence, and undoing one pass as a unit."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.maintain import ledger
from sentinel.paths import ledger_dir
from tests.support.maintain_pass import RunPass, ScriptedModel
from tests.support.vault import WriteVault

FILES = {
    "notes/maintenance.md": "# Maintenance\n\nThe nightly pass shrinks the [[growth queue]] and the [[Link graphs]].\n",
    "sources/queues.md": "The growth queue is the list of names that links reach for and no page answers to.\n",
    "notes/graph.md": "In short, the growth queue is the set of unresolved link targets.\n",
    "notes/Link graph.md": "---\ntags: [x]\n---\n# Link graph\n\nPages and the links between them.\n",
}


def agrees(name: str, sentences: list[str]) -> list[int]:
    return list(range(1, len(sentences) + 1))


def _cli(settings: object, *args: str) -> tuple[int, str]:
    where = ["--vault", str(settings.vault), "--index", str(settings.index_path)]  # type: ignore[attr-defined]
    result = CliRunner().invoke(app, ["maintain", *args, *where])
    return result.exit_code, result.output


def test_a_pass_ledger_lists_each_write_with_its_evidence(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(FILES)
    done = run_maintain(settings, ScriptedModel(defining=agrees, same=lambda a, b: "same"))
    assert done.report.concept_pages_written == ["wiki/growth queue.md"] and done.report.aliases_written == 1
    pass_id = done.report.ledger
    assert ledger.passes(settings) == [pass_id]
    written = [entry["path"] for entry in ledger.entries(settings, pass_id)]
    assert written == ["notes/Link graph.md", "wiki/growth queue.md"]  # names are resolved before pages are written
    morning = (ledger_dir(settings) / f"{pass_id}.md").read_text(encoding="utf-8")
    assert "created `wiki/growth queue.md`" in morning and "changed `notes/Link graph.md`" in morning
    assert "says what it is: yes; only mentions it: no" in morning and "span: [" in morning
    assert "alias: Link graphs" in morning and "same as: Link graph" in morning
    code, output = _cli(settings, "log")
    assert code == 0 and pass_id in output
    code, output = _cli(settings, "log", pass_id)
    assert code == 0 and "sentence: In short, the growth queue is the set of unresolved link targets." in output


def test_revert_undoes_one_pass_and_leaves_what_a_person_edited(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(FILES)
    original = (settings.vault / "notes/Link graph.md").read_text(encoding="utf-8")
    done = run_maintain(settings, ScriptedModel(defining=agrees, same=lambda a, b: "same"))
    page = settings.vault / "wiki/growth queue.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nMy own addition.\n", encoding="utf-8")
    code, output = _cli(settings, "revert", done.report.ledger)
    assert code == 0
    assert "undone   notes/Link graph.md" in output
    assert "left     wiki/growth queue.md: it was edited after the pass; left as it is" in output
    assert (settings.vault / "notes/Link graph.md").read_text(encoding="utf-8") == original
    assert page.read_text(encoding="utf-8").endswith("My own addition.\n")


def test_revert_of_an_untouched_pass_removes_its_pages(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(FILES)
    done = run_maintain(settings, ScriptedModel(defining=agrees))
    result = ledger.revert(settings, done.report.ledger)
    assert result.undone == ["wiki/growth queue.md"] and result.left == []
    assert not (settings.vault / "wiki/growth queue.md").exists()


def test_an_unknown_pass_is_a_clear_error(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "a\n"})
    with pytest.raises(ledger.UnknownPass, match=r"no ledger for pass 'nope'.*sentinel maintain log"):
        ledger.revert(settings, "nope")
    code, output = _cli(settings, "revert", "nope")
    assert code != 0 and "no ledger for pass 'nope'" in output
