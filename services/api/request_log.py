"""One JSON log line per request, with its request id (plain ASGI: no per-request task or body buffering), and
one per tool call saying what it did. Health checks and metric scrapes are logged at debug only: they come every
few seconds and would bury everything else."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Sequence
from typing import Any

from sentinel.logs import request_id
from sentinel.tools.policy import Status

log = logging.getLogger("sentinel.api")

QUIET_PATHS = frozenset({"/health", "/metrics"})
# Arguments that name a page, and pages a result names (search hits, the note a save wrote): the first few.
_PAGE_ARGUMENTS = ("path", "source", "destination")
_PAGE_IN_TEXT = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[^\n/]*?\.md\b")
_MAX_PAGES = 5
_MARKERS = sorted((status.value for status in Status), key=len, reverse=True)


def log_tool_call(
    name: str, arguments: dict[str, Any], text: str, seconds: float, pages_found: Sequence[str] = ()
) -> None:
    """One line per tool call: the tool, its status marker, the page(s) it touched or found, how long it took."""
    marker = next((m for m in _MARKERS if text.startswith(m)), "")
    named = [str(arguments[key]) for key in _PAGE_ARGUMENTS if arguments.get(key)]
    found = [page.strip() for page in _PAGE_IN_TEXT.findall(text)]
    pages = list(dict.fromkeys(named + list(pages_found) + [page for page in found if page]))[:_MAX_PAGES]
    log.info("tool", extra={"tool": name, "marker": marker, "pages": pages, "ms": round(seconds * 1e3, 1)})


Scope = dict[str, Any]
Message = dict[str, Any]


class RequestLog:
    """Tags each request with ``x-request-id`` (the caller's or a new one) and logs it once it has ended."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers", [])).get(b"x-request-id", b"").decode(errors="replace")
        rid = given[:64] or uuid.uuid4().hex[:12]
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed_ms = round((time.perf_counter() - started) * 1e3, 1)
            level = logging.DEBUG if scope["path"] in QUIET_PATHS and status < 400 else logging.INFO
            where = {"method": scope["method"], "path": scope["path"], "status": status, "ms": elapsed_ms}
            log.log(level, "request", extra=where)
            request_id.reset(token)
