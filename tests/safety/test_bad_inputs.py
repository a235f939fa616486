"""Defect 7: a lone surrogate in any argument and a chat over the page size limit get a specific answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.settings import Settings
from sentinel.tools.capture import capture
from sentinel.tools.policy import Status
from sentinel.tools.registry import TOOLS, call_tool
from services.api.app import create_app
from tests.support.servers import serve
from tests.support.tool_context import MakeContext
from tests.support.vault import WriteVault

BAD = "a\ud800b"
ARGS = {
    "search": {"query": BAD},
    "read": {"path": f"notes/{BAD}.md"},
    "listing": {"folder": BAD},
    "graph": {"target": BAD},
    "write": {"path": "notes/P.md", "content": BAD, "mode": "append"},
    "relocate": {"source": "notes/P.md", "destination": f"notes/{BAD}.md"},
    "remove": {"path": f"notes/{BAD}.md"},
}


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_a_lone_surrogate_is_a_retry_naming_the_argument(make_ctx: MakeContext, tool: str) -> None:
    ctx = make_ctx({"notes/P.md": "page\n"})
    text = call_tool(ctx, tool, ARGS[tool])
    assert text.startswith("[RETRY]") and "surrogate" in text, text
    field = next(k for k, v in ARGS[tool].items() if BAD in v)
    assert field in text
    text.encode("utf-8")  # the answer itself is always encodable
    assert (ctx.settings.vault / "notes/P.md").read_text() == "page\n"


def test_capture_with_a_lone_surrogate_writes_nothing(make_ctx: MakeContext) -> None:
    ctx = make_ctx({})
    result = capture(ctx, "c", [{"role": "user", "content": BAD}], "Topic", "x")
    assert result.status is Status.RETRY and "messages" in result.body
    assert not (ctx.settings.vault / "notes").exists()


def test_a_chat_over_the_page_limit_is_refused_once_and_never_duplicated(make_ctx: MakeContext) -> None:
    ctx = make_ctx({}, max_page_bytes=2000)
    vault = ctx.settings.vault
    long_chat = [{"role": "user", "content": "word " * 1000}]
    for _ in range(2):
        result = capture(ctx, "big", long_chat, "Topic", "keep")
        assert result.status is Status.STOP and "max_page_bytes" in result.body
    assert not (vault / "conversations").exists() or not list((vault / "conversations").iterdir())
    assert not (vault / "notes/Topic.md").exists()


class Api:
    def __init__(self, url: str, key: str) -> None:
        self.url, self.key = url, key

    def post(self, route: str, body: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.key}", "content-type": "application/json"}
        return httpx.post(f"{self.url}{route}", content=body, headers=headers, timeout=30)


@pytest.fixture
def api(vault_settings: WriteVault) -> Iterator[Api]:
    settings: Settings = vault_settings({"notes/P.md": "page\n"})
    settings.sync_interval_s = 0
    _, key = create_key(keys_path(settings), Scope.WRITE, "test")
    with serve(create_app(settings)) as url:
        yield Api(url, key)


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("/v1/tools/search", '{"query": "a\\ud800b"}', "query"),
        ("/v1/tools/write", '{"path": "notes/P.md", "content": "\\ud800", "mode": "append"}', "content"),
        ("/v1/tools/read", '{"path": "notes/\\udfff.md"}', "path"),
        (
            "/v1/capture",
            '{"chat_id": "c", "messages": [{"role": "user", "content": "\\ud800"}], "subject": "s"}',
            "messages",
        ),
        ("/v1/tools/search", '{"query": 5, "rung": "\\ud800"}', "rung"),
    ],
)
def test_the_api_never_answers_500_to_a_surrogate(api: Api, route: str, body: str, field: str) -> None:
    answer = api.post(route, body)
    assert answer.status_code < 500, answer.text
    assert field in answer.text
    assert Path  # keep imports honest for type checkers
