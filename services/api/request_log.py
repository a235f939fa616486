"""One JSON log line per request, with its request id (plain ASGI: no per-request task or body buffering)."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from sentinel.logs import request_id

log = logging.getLogger("sentinel.api")

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
            log.info(
                "request", extra={"method": scope["method"], "path": scope["path"], "status": status, "ms": elapsed_ms}
            )
            request_id.reset(token)
