"""Structured logs: one JSON line per event, carrying the request or task id, for every service; and the one
request log of every HTTP service (the API, the embedder): a line per request once it has ended."""

from __future__ import annotations

import logging
import sys
import time
import uuid
from contextvars import ContextVar
from typing import Any

from pythonjsonlogger.json import JsonFormatter

request_id: ContextVar[str] = ContextVar("request_id", default="")
_CHATTY = ("httpx", "httpcore")


class _WithRequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class _Stdout(logging.StreamHandler):
    """Writes to whatever ``sys.stdout`` is now, never to a stream that was replaced (and maybe closed) since."""

    @property
    def stream(self) -> object:
        return sys.stdout

    @stream.setter
    def stream(self, _: object) -> None:
        pass


def configure_logging(service: str, level: str = "INFO") -> logging.Logger:
    """Route the root logger to stdout as JSON lines tagged with ``service`` and the current request id."""
    handler = _Stdout()
    handler.setFormatter(
        JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s", static_fields={"service": service})
    )
    handler.addFilter(_WithRequestId())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for chatty in _CHATTY:  # a line per HTTP request they make: the caller logs what matters
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
    return logging.getLogger(f"sentinel.{service}")


# Health checks and metric scrapes come every few seconds and would bury everything else: debug only.
QUIET_PATHS = frozenset({"/health", "/metrics"})
LOG_FIELDS = "log_fields"  # what a route adds to its request's line: ``request.state.log_fields = {...}``


class RequestLog:
    """ASGI middleware: tags each request with ``x-request-id`` (the caller's or a new one), sets it as the
    request id of every line logged meanwhile, and logs one ``request`` line to ``logger`` once it has ended
    (plain ASGI: no per-request task or body buffering)."""

    def __init__(self, app: Any, logger: str) -> None:
        self.app = app
        self.log = logging.getLogger(logger)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers", [])).get(b"x-request-id", b"").decode(errors="replace")
        rid = given[:64] or uuid.uuid4().hex[:12]
        token = request_id.set(rid)
        state = scope.setdefault("state", {})  # what ``request.state`` writes into
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: dict[str, Any]) -> None:
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
            level = logging.ERROR if status >= 500 else level
            where = {"method": scope["method"], "path": scope["path"], "status": status, "ms": elapsed_ms}
            self.log.log(level, "request", extra={**state.get(LOG_FIELDS, {}), **where})
            request_id.reset(token)
