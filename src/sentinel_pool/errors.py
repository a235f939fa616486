"""What the pool answers when it cannot serve a request: each error knows its HTTP status, body (OpenAI's error
shape) and headers (``Retry-After``, ``x-should-retry``); ``face.error_reply`` makes them an answer, and each
server (the API, the daemon) turns every one a route lets through into that answer in one place. Each is also the
product's kind of failure (``sentinel.errors``), so a door that is not the pool's still says it as what it is."""

from __future__ import annotations

import hashlib
import math
import uuid
from typing import Any

from sentinel.errors import HTTP_STATUS, BadInput, Conflict, NotFound, Refused, SentinelError, Unavailable, kind_of


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


class DaemonError(SentinelError):
    """What the daemon's own routes (the peer protocol, jobs, pulls, wakes, a follower's forwarding) cannot do, in
    their own shape: ``{"error": message, "code": ..., **extra}``, or with ``nested`` the OpenAI-like
    ``{"error": {"message": ..., "code": ..., **extra}}`` its inference answers use. Its status is its kind's
    (``sentinel.errors.HTTP_STATUS``) unless ``status`` names a closer one (401, 403, 502). Raised, never
    answered inline: ``daemon_routes.pool_errors`` answers it. Raise one of the kinds below, not this base."""

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        status: int | None = None,
        nested: bool = False,
    ) -> None:
        super().__init__(message)
        self.code, self.extra, self.nested = code, extra or {}, nested
        self._headers, self._status = headers or {}, status

    @property
    def status(self) -> int:
        if self._status is not None:
            return self._status
        kind = kind_of(self)
        if kind is None:
            raise TypeError(f"{type(self).__name__} is no kind of sentinel.errors: raise one of DaemonError's kinds")
        return HTTP_STATUS[kind]

    def body(self) -> dict[str, Any]:
        fields = ({"code": self.code} if self.code is not None else {}) | self.extra
        return {"error": {"message": str(self)} | fields} if self.nested else {"error": str(self)} | fields

    def headers(self) -> dict[str, str]:
        return dict(self._headers)


class DaemonBadInput(DaemonError, BadInput):
    pass


class DaemonNotFound(DaemonError, NotFound):
    pass


class DaemonRefused(DaemonError, Refused):
    pass


class DaemonUnavailable(DaemonError, Unavailable):
    pass


class DaemonConflict(DaemonError, Conflict):
    pass
