"""The pool daemon's own routes (the peer protocol, jobs, pulls, wakes, a follower's forwarding) raise a
``DaemonError`` of the right kind and its one middleware answers it: the status is the kind's, from the table every
HTTP door reads (``sentinel.errors.HTTP_STATUS``), unless the error names a closer one. No route builds an error
answer inline any more, and the rule below keeps it so."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient as AioClient
from aiohttp.test_utils import TestServer

from sentinel import errors
from sentinel_pool.daemon_routes import pool_errors
from sentinel_pool.errors import (
    DaemonBadInput,
    DaemonConflict,
    DaemonError,
    DaemonNotFound,
    DaemonRefused,
    DaemonUnavailable,
)
from services.common import errors as http_errors

POOL = Path(__file__).resolve().parents[2] / "src" / "sentinel_pool"
ANSWERS = ("json_response", "Response")  # aiohttp's ways to build an answer with a status


def inline_error_answers(source: str) -> list[int]:
    """Lines of ``source`` that build an answer with a literal 4xx/5xx status (``web.json_response(...,
    status=404)``): a decision the daemon's translator makes, taken in a route."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name not in ANSWERS:
            continue
        for keyword in node.keywords:
            status = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
            if keyword.arg == "status" and isinstance(status, int) and status >= 400:
                found.append(node.lineno)
    return found


def test_no_pool_route_answers_an_error_inline() -> None:
    found = [
        f"{path.relative_to(POOL.parents[1])}:{line}"
        for path in sorted(POOL.rglob("*.py"))
        for line in inline_error_answers(path.read_text(encoding="utf-8"))
    ]
    assert found == [], f"raise a sentinel_pool.errors.DaemonError of the right kind instead: {found}"


def test_the_rule_sees_an_inline_error_answer_in_any_spelling() -> None:
    wrong = (
        "from aiohttp import web\nfrom aiohttp.web import json_response\n"
        "def a(): return web.json_response({'error': 'x'}, status=404)\n"
        "def b(): return json_response({'error': 'x'}, status=503, headers={'Retry-After': '1'})\n"
        "def c(): return web.Response(status=502, text='x')\n"
    )
    assert inline_error_answers(wrong) == [3, 4, 5]
    fine = "from aiohttp import web\ndef d(): return web.json_response({'job': 'j'}, status=202)\n"
    assert inline_error_answers(fine + "def e(r): return web.json_response({}, status=r.status)\n") == []


def test_both_http_doors_read_one_status_table() -> None:
    assert http_errors.STATUS is errors.HTTP_STATUS
    assert set(errors.HTTP_STATUS) == set(errors.KINDS)


KINDS = [
    (DaemonBadInput("x"), errors.BadInput, 400),
    (DaemonNotFound("x"), errors.NotFound, 404),
    (DaemonConflict("x"), errors.Conflict, 409),
    (DaemonRefused("x"), errors.Refused, 422),
    (DaemonUnavailable("x"), errors.Unavailable, 503),
]


@pytest.mark.parametrize(("error", "kind", "status"), KINDS, ids=lambda e: type(e).__name__)
def test_a_daemon_error_is_its_kind_and_answers_its_kinds_status(
    error: DaemonError, kind: type[errors.SentinelError], status: int
) -> None:
    assert errors.kind_of(error) is kind
    assert error.status == status == http_errors.status_of(error)


def test_a_daemon_error_that_is_no_kind_says_so_instead_of_guessing_a_status() -> None:
    with pytest.raises(TypeError, match="no kind"):
        _ = DaemonError("x").status


def test_the_daemon_answers_its_own_errors_in_their_shape_status_and_headers() -> None:
    raised: dict[str, DaemonError] = {
        "/flat": DaemonConflict("epoch 3 is fenced", code="stale_epoch"),
        "/extra": DaemonNotFound("job j is unknown", extra={"state": "unknown"}),
        "/nested": DaemonUnavailable(
            "the leader a was lost",
            code="leader_lost",
            extra={"request": "r1", "resume": "/api/requests/r1"},
            headers={"x-should-retry": "false"},
            nested=True,
        ),
        "/closer": DaemonRefused("missing or unknown API key", status=401),
    }

    async def fails(request: web.Request) -> web.Response:
        raise raised[request.path]

    async def scenario() -> dict[str, tuple[int, dict[str, str], bytes]]:
        app = web.Application(middlewares=[pool_errors])
        app.router.add_route("*", "/{tail:.*}", fails)
        async with TestServer(app) as server, AioClient(server) as client:
            answers = {}
            for path in raised:
                async with client.post(path) as answer:
                    answers[path] = (answer.status, dict(answer.headers), await answer.read())
            return answers

    answers = asyncio.run(scenario())
    assert answers["/flat"][0] == 409
    assert answers["/flat"][2] == b'{"error": "epoch 3 is fenced", "code": "stale_epoch"}'
    assert answers["/extra"][:3:2] == (404, b'{"error": "job j is unknown", "state": "unknown"}')
    status, headers, body = answers["/nested"]
    assert status == 503 and headers["x-should-retry"] == "false"
    nested = b'{"error": {"message": "the leader a was lost", "code": "leader_lost", "request": "r1", '
    assert body == nested + b'"resume": "/api/requests/r1"}}'
    assert answers["/closer"][:3:2] == (401, b'{"error": "missing or unknown API key"}')
    assert all(answer[1]["Content-Type"] == "application/json; charset=utf-8" for answer in answers.values())
