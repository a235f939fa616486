"""`sentinel eval`: suites load and are checked strictly; cases run end to end with a real model."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.evals import Case, SuiteError, load_suite, run_case
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.providers import provider_for
from sentinel.search import embed_pending
from sentinel.settings import ProviderSettings
from tests.support.scripted import ScriptedProvider
from tests.support.vault import WriteVault

PAGES = {
    "notes/Kettle.md": "# Kettle\n\nDescale the kettle every 30 days with citric acid.",
    "notes/Garden.md": "# Garden\n\nWater the tomatoes in the morning.",
}
CASE = Case(
    id="descale",
    question="How often should the kettle be descaled?",
    facts=[["30 days", "thirty days"]],
    sources=["notes/Kettle.md"],
    forbidden=["notes do not say"],
)


def test_the_built_in_suite_loads() -> None:
    suite = load_suite("obsidian-help")
    assert suite.name == "obsidian-help" and len(suite.cases) >= 10
    assert any(not case.sources for case in suite.cases)  # an unanswerable case is part of it


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name: x\ncases: []\n", "not a valid suite"),
        ("name: x\ncases:\n  - {id: a, question: q, facts: [[]]}\n", "requirement is empty"),
        ("name: x\ncases:\n  - {id: a, question: q}\n  - {id: a, question: r}\n", "ids repeat"),
        ("name: [unclosed\n", "not a valid suite"),
    ],
)
def test_bad_suites_are_refused_with_the_reason(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SuiteError, match=says):
        load_suite(str(path))


def test_a_missing_suite_names_the_built_in_ones() -> None:
    with pytest.raises(SuiteError, match="obsidian-help"):
        load_suite("no-such-suite")


@pytest.mark.parametrize(
    ("reply", "passed", "field", "value"),
    [
        ("Every 30 days [notes/Kettle.md].", True, "", None),
        ("Every THIRTY   days.", True, "", None),
        ("Once a month.", False, "missing_facts", ["30 days | thirty days"]),
        ("30 days, though the notes do not say.", False, "forbidden", ["notes do not say"]),
    ],
)
def test_answers_are_checked_by_string_rules(
    vault_settings: WriteVault, reply: str, passed: bool, field: str, value: list[str] | None
) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    model = ScriptedProvider([reply])  # forces the answer whose checking is under test
    result = run_case(db, settings, None, model, CASE)
    assert result.passed is passed
    if field:
        assert getattr(result, field) == value
    sent = model.requests[0].messages[1]["content"]
    assert "notes/Kettle.md" in sent and "citric acid" in sent and CASE.question in sent


def test_a_required_source_that_search_did_not_return_fails(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    case = CASE.model_copy(update={"sources": ["notes/Elsewhere.md"]})
    result = run_case(db, settings, None, ScriptedProvider(["Every 30 days."]), case)
    assert not result.passed and result.missing_sources == ["notes/Elsewhere.md"]


def test_an_unreachable_model_fails_the_case_with_the_error(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    result = run_case(db, settings, None, ScriptedProvider([]), CASE)
    assert not result.passed and result.error


@pytest.mark.slow
def test_end_to_end_with_the_real_model(
    vault_settings: WriteVault, e5: OnnxEmbedder, llama_settings: ProviderSettings
) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    result = run_case(db, settings, e5, provider_for(llama_settings), CASE)
    assert result.evidence[0] == "notes/Kettle.md" and not result.notes
    assert result.passed, result.as_dict()


@pytest.mark.slow
def test_the_cli_reports_each_case(
    vault_settings: WriteVault, llama_settings: ProviderSettings, tmp_path: Path
) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: kitchen\ncases:\n"
        "  - {id: descale, question: 'How often should the kettle be descaled?', facts: ['30 days'],"
        " sources: [notes/Kettle.md]}\n"
        "  - {id: impossible, question: 'What colour is the kettle?', facts: ['turquoise']}\n",
        encoding="utf-8",
    )
    out = CliRunner().invoke(
        app,
        [
            "eval", str(suite), "--vault", str(settings.vault), "--index", str(settings.index_path),
            "--kind", "openai", "--base-url", llama_settings.base_url, "--model", llama_settings.model, "--json",
        ],
    )  # fmt: skip
    assert out.exit_code == 1, out.output  # the impossible case fails, so the run does
    assert '"id": "descale"' in out.output and '"passed": false' in out.output
