"""What the pool answers when it cannot serve a request: each error knows its HTTP status, body (OpenAI's error
shape) and headers (``Retry-After``, ``x-should-retry``); ``face.error_reply`` makes them an answer, and each
server (the API, the daemon) turns every one a route lets through into that answer in one place. Each is also the
product's kind of failure (``sentinel.errors``), so a door that is not the pool's still says it as what it is."""

from __future__ import annotations

import hashlib
import math
import uuid
from typing import Any

from sentinel.errors import BadInput, Conflict, NotFound, SentinelError, Unavailable


class GatewayError(RuntimeError, SentinelError):
    """A request the pool cannot serve; ``status``, ``body()`` and ``headers()`` are the HTTP answer (OpenAI's
    error shape)."""

    status = 500
    code = "pool_error"

    def body(self) -> dict[str, Any]:
        return {"error": {"message": str(self), "type": "server_error", "code": self.code}}

    def headers(self) -> dict[str, str]:
        return {}


class BadRequest(GatewayError, BadInput):
    status, code = 400, "invalid_request"


class UnknownModel(GatewayError, NotFound):
    status, code = 404, "model_not_found"


class PoolExhausted(GatewayError, Unavailable):
    """503. ``retry``: nothing reached a node, so trying again after ``Retry-After`` is safe; otherwise the pool
    already spent the request's attempts and says ``x-should-retry: false`` (the OpenAI SDKs obey it), so a
    client's own retries cannot multiply dispatches."""

    status, code = 503, "pool_exhausted"

    def __init__(self, message: str, *, retry_after_s: float, retry: bool) -> None:
        super().__init__(message)
        self.retry_after_s, self.retry = retry_after_s, retry

    def headers(self) -> dict[str, str]:
        headers = {"Retry-After": str(max(1, math.ceil(self.retry_after_s)))}
        return headers if self.retry else headers | {"x-should-retry": "false"}


class PoolBusy(GatewayError, Unavailable):
    """503: every node serving the model is busy and the queue is full, or the request waited its time in it.
    Nothing reached a node, so a retry after ``Retry-After`` is safe."""

    status, code = 503, "pool_busy"

    def __init__(self, message: str, *, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(max(1, math.ceil(self.retry_after_s)))}


class RegistryUnavailable(GatewayError, Unavailable):
    """503: the registry (Redis) could not be read or written before any node was sent the request, so a retry
    after ``Retry-After`` is safe. Never a plain 500: the client is told what is down."""

    status, code = 503, "registry_unavailable"

    def headers(self) -> dict[str, str]:
        return {"Retry-After": "1"}


class Superseded(GatewayError, Conflict):
    status, code = 409, "job_superseded"

    def headers(self) -> dict[str, str]:
        return {"x-should-retry": "false"}


class BadIdempotencyKey(BadRequest):
    code = "invalid_idempotency_key"


def job_id(idempotency_key: str | None) -> str:
    """The job a request is: one per ``Idempotency-Key`` (so a client's retries are attempts of the same job,
    capped together), else a new one."""
    if idempotency_key is None:
        return uuid.uuid4().hex
    if not 1 <= len(idempotency_key) <= 255:
        raise BadIdempotencyKey("the Idempotency-Key header must be 1-255 characters (a UUID is usual)")
    return "key-" + hashlib.sha256(idempotency_key.encode()).hexdigest()[:32]


class BackendRefused(GatewayError, BadInput):
    """The node refused the request itself (a 4xx that is the request's fault): its answer, as it gave it."""

    def __init__(self, status: int, payload: Any) -> None:
        super().__init__(f"the model server answered HTTP {status}")
        self.status, self.payload = status, payload

    def body(self) -> dict[str, Any]:
        return self.payload if isinstance(self.payload, dict) else {"error": {"message": str(self.payload)}}
