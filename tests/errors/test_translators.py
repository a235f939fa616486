"""One error base, one translation per door: each kind of ``sentinel.errors`` reaches HTTP as its status and the
CLI as its exit code, said in the error's own words (MCP's: tests/mcp/test_mcp.py)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from sentinel import errors
from sentinel.cli import app as cli
from sentinel.embed.base import EmbedderUnavailable
from sentinel.maintain.lock import PassBusy
from sentinel.paths import PathRefused
from sentinel.providers.servers import UnknownKind
from sentinel.vault.walk import VaultMissing
from services.common import errors as http_errors

RAISED = [
    (UnknownKind("no model server kind 'vllm'"), 400, 2, "bad input"),
    (VaultMissing("no vault at /nowhere"), 404, 2, "not found"),
    (PathRefused("a hidden path"), 422, 2, "refused"),
    (EmbedderUnavailable("the embedder does not answer"), 503, 1, "unavailable"),
    (PassBusy("a pass is already running"), 409, 3, "conflict"),
]


def test_every_kind_has_its_own_words_and_every_door_a_translation_of_it() -> None:
    assert set(errors.LABELS) == set(errors.KINDS) == set(http_errors.STATUS)
    assert len(set(http_errors.STATUS.values())) == len(errors.KINDS)
    assert errors.kind_of(ValueError("a bug")) is None


@pytest.mark.parametrize(("error", "status", "_code", "_label"), RAISED)
def test_http_answers_each_kind_with_its_status_and_words(
    error: errors.SentinelError, status: int, _code: int, _label: str
) -> None:
    app = FastAPI()
    http_errors.install(app)

    @app.get("/fails")
    def fails() -> None:
        raise error

    answer = TestClient(app).get("/fails")
    assert (answer.status_code, answer.json()) == (status, {"detail": str(error)})


@pytest.mark.parametrize(("error", "_status", "code", "label"), RAISED)
def test_the_cli_says_each_kind_and_exits_with_its_code(
    error: errors.SentinelError, _status: int, code: int, label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sentinel.cli import keys

    def fails(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr(keys, "load_settings", fails)
    result = CliRunner().invoke(cli, ["keys", "list"])
    assert result.exit_code == code, result.output
    assert f"{label}: {error}" in " ".join(result.stderr.split())
