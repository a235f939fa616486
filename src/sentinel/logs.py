"""Structured logs: one JSON line per event, carrying the request or task id, for every service."""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar

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
