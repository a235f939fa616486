"""A command's settings are the ones the CLI root read from the environment, its flags winning over them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sentinel.cli import app


def _vault(root: Path, *names: str) -> Path:
    for name in names:
        (root / "notes").mkdir(parents=True, exist_ok=True)
        (root / "notes" / f"{name}.md").write_text(f"# {name}\n\nA page.\n")
    return root


def _synced(*args: str) -> dict[str, int]:
    result = CliRunner().invoke(app, ["index", "sync", "--json", *args])
    assert result.exit_code == 0, result.output
    report: dict[str, int] = json.loads(result.stdout)
    return report


def test_the_environment_names_the_vault_and_index_and_the_flags_win_over_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of the checkout's
    from_env = _vault(tmp_path / "env-vault", "One")
    from_flag = _vault(tmp_path / "flag-vault", "One", "Two", "Three")
    monkeypatch.setenv("SENTINEL_VAULT", str(from_env))
    monkeypatch.setenv("SENTINEL_INDEX_PATH", str(tmp_path / "env.db"))

    assert _synced()["added"] == 1
    assert (tmp_path / "env.db").is_file()
    # --vault wins over SENTINEL_VAULT; the index still comes from SENTINEL_INDEX_PATH, which has One already
    assert _synced("--vault", str(from_flag))["added"] == 2
    assert _synced("--vault", str(from_flag), "--index", str(tmp_path / "flag.db"))["added"] == 3
    assert (tmp_path / "flag.db").is_file()


def test_a_missing_vault_from_the_environment_is_named_and_a_flag_still_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SENTINEL_VAULT", str(tmp_path / "nowhere"))
    monkeypatch.setenv("SENTINEL_INDEX_PATH", str(tmp_path / "index.db"))
    missing = CliRunner().invoke(app, ["index", "sync"])
    assert missing.exit_code == 2 and "nowhere" in missing.output, missing.output
    assert _synced("--vault", str(_vault(tmp_path / "vault", "One")))["added"] == 1


def test_help_needs_no_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_API_PORT", "not a port")  # read only when a command asks for its settings
    shown = CliRunner().invoke(app, ["index", "sync", "--help"])
    assert shown.exit_code == 0 and "--vault" in shown.output, shown.output
