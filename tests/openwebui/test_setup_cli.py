"""`sentinel openwebui setup` refuses clearly, naming the setting, before it touches anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sentinel import prompts
from sentinel.cli import app
from tests.openwebui.servers import REPO
from tests.support.servers import free_port

runner = CliRunner()


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no developer .env
    for name in ("ADMIN_EMAIL", "ADMIN_PASSWORD", "BASE_MODEL", "URL", "TOOL_API_KEY"):
        monkeypatch.delenv(f"SENTINEL_OPENWEBUI__{name}", raising=False)
    monkeypatch.delenv("SENTINEL_CONVERSATION__MODEL", raising=False)
    monkeypatch.setenv("SENTINEL_OPENWEBUI__WAIT_S", "1")


def test_missing_admin_credentials_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_OPENWEBUI__ADMIN_EMAIL", "admin@example.org")
    result = runner.invoke(app, ["openwebui", "setup", "--base-model", "m"])
    assert result.exit_code == 2
    assert "SENTINEL_OPENWEBUI__ADMIN_PASSWORD" in result.output
    assert "SENTINEL_OPENWEBUI__ADMIN_EMAIL" not in result.output


def test_missing_tool_file_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_OPENWEBUI__ADMIN_EMAIL", "admin@example.org")
    monkeypatch.setenv("SENTINEL_OPENWEBUI__ADMIN_PASSWORD", "secret")
    result = runner.invoke(app, ["openwebui", "setup", "--base-model", "m"])
    assert result.exit_code == 2
    assert "SENTINEL_OPENWEBUI__TOOL_FILE" in result.output


def test_missing_base_model_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_OPENWEBUI__ADMIN_EMAIL", "admin@example.org")
    monkeypatch.setenv("SENTINEL_OPENWEBUI__ADMIN_PASSWORD", "secret")
    result = runner.invoke(app, ["openwebui", "setup"])
    assert result.exit_code == 2
    assert "SENTINEL_OPENWEBUI__BASE_MODEL" in result.output


def test_open_webui_not_answering_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_OPENWEBUI__ADMIN_EMAIL", "admin@example.org")
    monkeypatch.setenv("SENTINEL_OPENWEBUI__ADMIN_PASSWORD", "secret")
    monkeypatch.setenv("SENTINEL_OPENWEBUI__TOOL_FILE", str(REPO / "tool" / "openwebui_tool.py"))
    monkeypatch.setenv("SENTINEL_OPENWEBUI__SYSTEM_PROMPT_FILE", str(prompts.SYSTEM_PROMPT))
    nobody = f"http://127.0.0.1:{free_port()}"
    result = runner.invoke(app, ["openwebui", "setup", "--base-model", "m", "--url", nobody])
    assert result.exit_code == 2
    assert nobody in result.output and "not healthy" in result.output
