"""Logs a person can read: each tool call is one line with its tool, status marker, pages and duration; health
checks and metric scrapes stay out of the INFO log; httpx's per-request lines stay out of every service's."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import httpx
import pytest

from sentinel.keys import Scope, create_key
from sentinel.logs import configure_logging
from sentinel.paths import keys_path
from services.api.app import create_app
from tests.support.servers import serve
from tests.support.vault import WriteVault

FILES = {
    "notes/Growth queue.md": "# Growth queue\nThe growth queue lists names that no page answers to.\n",
    "conversations/2026-01-01-1.md": "---\nchat_id: old\ntype: transcript\n---\n## user\nhello\n",
}


@pytest.fixture
def logged(vault_settings: WriteVault) -> Iterator[tuple[str, str, list[logging.LogRecord]]]:
    settings = vault_settings(FILES)
    settings.sync_interval_s = 0
    _, key = create_key(keys_path(settings), Scope.WRITE, "test")
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    api_log = logging.getLogger("sentinel.api")
    with serve(create_app(settings)) as url:
        # INFO as the service runs, whatever level another test left the root at
        level = api_log.level
        api_log.setLevel(logging.INFO)  # setLevel, not assignment: it also clears the loggers' isEnabledFor cache
        api_log.addHandler(handler)
        try:
            yield url, key, records
        finally:
            api_log.removeHandler(handler)
            api_log.setLevel(level)


def _tool_lines(records: list[logging.LogRecord]) -> list[dict[str, object]]:
    return [r.__dict__ for r in records if r.getMessage() == "tool" and r.levelno == logging.INFO]


def test_each_tool_call_is_one_line_with_marker_pages_and_duration(
    logged: tuple[str, str, list[logging.LogRecord]],
) -> None:
    url, key, records = logged
    auth = {"Authorization": f"Bearer {key}"}
    httpx.post(f"{url}/v1/tools/search", json={"query": "growth queue"}, headers=auth, timeout=30)
    httpx.post(
        f"{url}/v1/tools/write",
        json={"path": "conversations/2026-01-01-1.md", "content": "x", "mode": "replace"},
        headers=auth,
        timeout=30,
    )
    body = {
        "chat_id": "c1",
        "subject": "Growth queue",
        "content": "Kept.",
        "messages": [{"role": "user", "content": "save this"}],
    }
    httpx.post(f"{url}/v1/capture", json=body, headers=auth, timeout=30)
    search, write, save = _tool_lines(records)
    assert search["tool"] == "search" and search["marker"] == "[OK]" and search["pages"] == ["notes/Growth queue.md"]
    assert (
        write["tool"] == "write" and write["marker"] == "[STOP]" and write["pages"] == ["conversations/2026-01-01-1.md"]
    )
    assert save["tool"] == "save" and save["marker"] == "[OK]" and "notes/Growth queue.md" in save["pages"]  # type: ignore[operator]
    assert all(isinstance(line["ms"], float) for line in (search, write, save))


def test_health_checks_stay_out_of_the_info_log(logged: tuple[str, str, list[logging.LogRecord]]) -> None:
    url, _, records = logged
    for _ in range(3):
        assert httpx.get(f"{url}/health").status_code == 200
    httpx.get(f"{url}/openapi.json")

    def logged_paths() -> list[object]:
        return [r.__dict__.get("path") for r in records if r.getMessage() == "request" and r.levelno >= logging.INFO]

    deadline = time.monotonic() + 10  # a request's line is written once its response has gone: maybe after it
    while "/openapi.json" not in logged_paths() and time.monotonic() < deadline:
        time.sleep(0.05)
    paths = logged_paths()
    assert "/health" not in paths and "/openapi.json" in paths


def test_httpx_request_lines_are_off_at_info() -> None:
    configure_logging("worker")
    assert not logging.getLogger("httpx").isEnabledFor(logging.INFO)
    assert logging.getLogger("sentinel.worker").isEnabledFor(logging.INFO)
