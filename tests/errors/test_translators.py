"""One error base, one translation per door: each kind of ``sentinel.errors`` reaches HTTP as its status and the
CLI as its exit code, said in the error's own words (MCP's: tests/mcp/test_mcp.py); a pool error reaches each
server's client in OpenAI's or Ollama's shape from one handler (the real gateway's: tests/pool)."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient as AioClient
from aiohttp.test_utils import TestServer
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from sentinel import errors
from sentinel.cli import app as cli
from sentinel.embed.base import EmbedderUnavailable
from sentinel.keys import KeyUnknown, NotPermitted
from sentinel.maintain.lock import PassBusy
from sentinel.paths import PathRefused
from sentinel.providers.servers import UnknownKind
from sentinel.vault.walk import VaultMissing
from sentinel_pool.daemon_routes import pool_errors
from sentinel_pool.errors import (
    BadRequest,
    GatewayError,
    PoolBusy,
    PoolExhausted,
    RegistryUnavailable,
    Superseded,
    UnknownModel,
)
from sentinel_pool.ollama_api import OllamaRequestInvalid
from services.api.pool import install_pool_errors
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


def test_http_says_who_the_caller_is_401_with_its_challenge_and_what_it_may_not_do_403() -> None:
    app = FastAPI()
    http_errors.install(app)

    @app.get("/unknown")
    def unknown() -> None:
        raise KeyUnknown("missing or unknown API key")

    @app.get("/forbidden")
    def forbidden() -> None:
        raise NotPermitted("wake needs a write-scoped key")

    client = TestClient(app)
    first, second = client.get("/unknown"), client.get("/forbidden")
    assert (first.status_code, first.json()) == (401, {"detail": "missing or unknown API key"})
    assert first.headers["www-authenticate"] == "Bearer"
    assert (second.status_code, second.json()) == (403, {"detail": "wake needs a write-scoped key"})
    assert "www-authenticate" not in second.headers
    # both are refusals: a door that speaks words says them as such
    assert errors.kind_of(KeyUnknown("x")) is errors.kind_of(NotPermitted("x")) is errors.Refused


FIXED_STATUS = [BadRequest("x"), UnknownModel("x"), PoolBusy("x", retry_after_s=1), RegistryUnavailable("x")]
FIXED_STATUS += [PoolExhausted("x", retry_after_s=1, retry=False), Superseded("x"), OllamaRequestInvalid("x")]


@pytest.mark.parametrize("error", FIXED_STATUS, ids=lambda e: type(e).__name__)
def test_a_pool_error_is_a_kind_and_its_wire_status_is_that_kinds(error: GatewayError) -> None:
    """The pool keeps OpenAI's status on the wire (it imports no service); the HTTP translator's table agrees."""
    assert errors.kind_of(error) is not None
    assert error.status == http_errors.status_of(error)


def _pool_failing(error: GatewayError) -> FastAPI:
    app = FastAPI()
    http_errors.install(app)
    install_pool_errors(app)

    async def fails() -> None:
        raise error

    for path in ("/v1/chat/completions", "/api/chat"):
        app.add_api_route(path, fails, methods=["POST"])
    return app


def test_the_api_answers_a_pool_error_in_the_dialect_of_the_route_with_its_headers() -> None:
    busy = PoolBusy("every node is busy", retry_after_s=2.5)
    client = TestClient(_pool_failing(busy))
    openai = client.post("/v1/chat/completions")
    assert openai.status_code == 503 and openai.headers["retry-after"] == "3"
    assert openai.json() == {"error": {"message": "every node is busy", "type": "server_error", "code": "pool_busy"}}
    ollama = client.post("/api/chat")
    assert (ollama.status_code, ollama.json()) == (503, {"error": "every node is busy"})
    assert ollama.headers["retry-after"] == "3"


def test_the_daemon_answers_a_pool_error_raised_by_any_route_once() -> None:
    spent = PoolExhausted("three attempts failed", retry_after_s=1, retry=False)

    async def fails(_: web.Request) -> web.Response:
        raise spent

    async def scenario() -> list[tuple[int, dict[str, str], object]]:
        app = web.Application(middlewares=[pool_errors])
        app.router.add_route("*", "/{tail:.*}", fails)
        async with TestServer(app) as server, AioClient(server) as client:
            answers = []
            for path in ("/v1/chat/completions", "/api/generate"):
                async with client.post(path) as answer:
                    answers.append((answer.status, dict(answer.headers), await answer.json()))
            return answers

    (openai, ollama) = asyncio.run(scenario())
    assert openai[0] == 503 and openai[1]["x-should-retry"] == "false" and openai[1]["Retry-After"] == "1"
    said = {"message": "three attempts failed", "type": "server_error", "code": "pool_exhausted"}
    assert openai[2] == {"error": said}
    assert ollama[0] == 503 and ollama[2] == {"error": "three attempts failed"}
