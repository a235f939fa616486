"""The gateway's core: choose a node, send the request, fail over before the first token, never after it.

Any number of gateway processes can run this side by side: all they share is Redis (the registry and the job
ledger), so there is no leader to elect for routing. A request is a job. Each attempt is an assignment with a new
epoch (``jobs``); a node that cannot be reached, answers 5xx (or 404/408/429: the registry was stale or the
node is overloaded), or drops the connection before the first token is replaced by the next-best node, up to
``pool.attempts`` attempts. Streamed events are held back until the first token, so a client never sees a
half-started answer from a node that then died. Once tokens have gone out the job is never re-run: a node lost
mid-stream ends the stream with an explicit error event. A 4xx that is the request's own fault is the client's
answer, passed through without failover.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import anyio
import httpx
from redis.asyncio import Redis as AsyncRedis

from sentinel.pool.jobs import Assignment, JobLedger, NotReassignable, StaleEpoch
from sentinel.pool.registry import PoolKeys, Snapshot, snapshot
from sentinel.pool.routing import Candidate, pool_models, rank
from sentinel.settings import Settings

log = logging.getLogger("sentinel.pool")

T = TypeVar("T")
# Statuses that say "this node, not this request": try another one.
_NODE_STATUSES = {404, 408, 429}
_DONE = "[DONE]"
Event = tuple[str, str]  # (the event's text as it is sent on, its data payload)
_END: Event = ("", "")  # the iterator ran out


class GatewayError(RuntimeError):
    """A request the pool cannot serve; ``status`` and ``body()`` are the HTTP answer (OpenAI's error shape)."""

    status = 500
    code = "pool_error"

    def body(self) -> dict[str, Any]:
        return {"error": {"message": str(self), "type": "server_error", "code": self.code}}


class BadRequest(GatewayError):
    status, code = 400, "invalid_request"


class UnknownModel(GatewayError):
    status, code = 404, "model_not_found"


class PoolExhausted(GatewayError):
    status, code = 503, "pool_exhausted"


class Superseded(GatewayError):
    status, code = 409, "job_superseded"


class BackendRefused(GatewayError):
    """The node refused the request itself (a 4xx that is the request's fault): its answer, as it gave it."""

    def __init__(self, status: int, payload: Any) -> None:
        super().__init__(f"the model server answered HTTP {status}")
        self.status, self.payload = status, payload

    def body(self) -> dict[str, Any]:
        return self.payload if isinstance(self.payload, dict) else {"error": {"message": str(self.payload)}}


class Observer(Protocol):
    """What the gateway reports as it works (the API maps it to Prometheus metrics)."""

    def failover(self, model: str, node: str, reason: str) -> None: ...

    def first_token(self, model: str, node: str, seconds: float) -> None: ...

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None: ...


class _Silent:
    def failover(self, model: str, node: str, reason: str) -> None:
        pass

    def first_token(self, model: str, node: str, seconds: float) -> None:
        pass

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None:
        pass


class _NodeFailed(Exception):
    def __init__(self, reason: str, *, reached: bool) -> None:
        super().__init__(reason)
        self.reason, self.reached = reason, reached


def _failure(error: httpx.HTTPError) -> _NodeFailed:
    """Connection refused or timed out: the node never got the request. Anything later: it may have."""
    reached = not isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)
    return _NodeFailed(f"{type(error).__name__}: {error}".rstrip(": "), reached=reached)


def _check_status(response: httpx.Response, text: str) -> None:
    if response.status_code < 400:
        return
    if response.status_code >= 500 or response.status_code in _NODE_STATUSES:
        raise _NodeFailed(f"HTTP {response.status_code}: {text[:300]}", reached=True)
    try:
        payload: Any = json.loads(text)
    except json.JSONDecodeError:
        payload = text
    raise BackendRefused(response.status_code, payload)


def _is_output(data: str) -> bool:
    """Whether one SSE data payload carries output (a token, a tool call, an end, an error), not just a role."""
    if not data:  # a comment (keep-alive ping) or an event without data
        return False
    if data == _DONE:
        return True
    try:
        payload = json.loads(data)
    except json.JSONDecodeError:
        return True  # not ours to judge: pass it on
    if not isinstance(payload, dict) or "error" in payload:
        return True
    for choice in payload.get("choices") or []:
        delta = choice.get("delta") or {}
        if choice.get("finish_reason") or delta.get("content") or delta.get("tool_calls"):
            return True
        if delta.get("reasoning_content"):
            return True
    return False


async def _sse_events(response: httpx.Response) -> AsyncIterator[Event]:
    """Each server-sent event of a response, in order."""
    lines: list[str] = []
    async for line in response.aiter_lines():
        if line:
            lines.append(line)
            continue
        if lines:
            data = "\n".join(part[5:].lstrip() for part in lines if part.startswith("data:"))
            yield "\n".join(lines) + "\n\n", data
            lines = []


def error_event(message: str, code: str) -> Event:
    """The explicit end of a stream that broke: OpenAI clients raise it as an API error."""
    data = json.dumps({"error": {"message": message, "type": "server_error", "code": code}})
    return f"data: {data}\n\n", data


@dataclass(frozen=True)
class Completed:
    answer: dict[str, Any]  # the node's JSON answer, as it gave it
    node: str


class Gateway:
    def __init__(
        self,
        settings: Settings,
        redis: AsyncRedis,
        http: httpx.AsyncClient,
        *,
        keys: PoolKeys | None = None,
        observer: Observer | None = None,
    ) -> None:
        self.pool = settings.pool
        self.redis, self.http = redis, http
        self.keys = keys or PoolKeys.from_settings(settings)
        self.ledger = JobLedger(redis, self.keys, self.pool.job_ttl_s)
        self.observer: Observer = observer or _Silent()
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self._timeout = httpx.Timeout(
            connect=self.pool.connect_timeout_s,
            read=self.pool.first_token_timeout_s,
            write=self.pool.connect_timeout_s,
            pool=self.pool.connect_timeout_s,
        )

    async def snapshot(self) -> Snapshot:
        return await snapshot(self.redis, self.keys)

    async def models(self) -> dict[str, list[str]]:
        return pool_models(await self.snapshot())

    async def complete(self, endpoint: str, body: dict[str, Any], *, idempotent: bool = True) -> Completed:
        """A non-streaming call (``/chat/completions``, ``/embeddings``) with failover; the node's JSON answer."""
        started = time.perf_counter()

        async def attempt(candidate: Candidate, assignment: Assignment) -> Completed:
            try:
                response = await self.http.post(
                    candidate.url + endpoint, json=body | {"model": candidate.model}, timeout=self._timeout
                )
            except httpx.HTTPError as error:
                raise _failure(error) from error
            _check_status(response, response.text)
            try:
                answer: dict[str, Any] = response.json()
            except json.JSONDecodeError as error:
                raise _NodeFailed(f"answer is not JSON: {response.text[:200]!r}", reached=True) from error
            await self.ledger.done(assignment)
            self.observer.finished(endpoint, candidate.model, candidate.node, "ok", time.perf_counter() - started)
            return Completed(answer, candidate.node)

        return await self._with_failover(endpoint, body, idempotent, started, attempt)

    async def stream(self, body: dict[str, Any], *, idempotent: bool = True) -> Stream:
        """Open a streamed chat completion on the best node that gets to its first token."""
        started = time.perf_counter()

        async def attempt(candidate: Candidate, assignment: Assignment) -> Stream:
            request = self.http.build_request(
                "POST",
                f"{candidate.url}/chat/completions",
                json=body | {"model": candidate.model},
                timeout=self._timeout,
            )
            try:
                response = await self.http.send(request, stream=True)
            except httpx.HTTPError as error:
                raise _failure(error) from error
            try:
                if response.status_code >= 400:
                    _check_status(response, (await response.aread()).decode(errors="replace"))
                events = _sse_events(response)
                head: list[Event] = []
                async for event in events:
                    head.append(event)
                    if _is_output(event[1]):
                        break
                else:
                    raise _NodeFailed("the stream ended before its first token", reached=True)
            except httpx.HTTPError as error:
                await response.aclose()
                raise _failure(error) from error
            except BaseException:
                await response.aclose()
                raise
            try:
                await self.ledger.streaming(assignment)
            except StaleEpoch as stale:
                await response.aclose()
                raise Superseded(str(stale)) from stale
            self.observer.first_token(candidate.model, candidate.node, time.perf_counter() - started)
            return Stream(self, assignment, candidate, response, events, head, started)

        return await self._with_failover("/chat/completions", body, idempotent, started, attempt)

    async def _with_failover(
        self,
        endpoint: str,
        body: dict[str, Any],
        idempotent: bool,
        started: float,
        attempt: Callable[[Candidate, Assignment], Awaitable[T]],
    ) -> T:
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise BadRequest("the request has no 'model': name one of the pool's models (GET /v1/models)")
        pool = await self.snapshot()
        candidates = rank(pool, model)
        if not candidates:
            served = ", ".join(pool_models(pool)) or "none (no node is registered)"
            self.observer.finished(endpoint, model, "", "unknown_model", time.perf_counter() - started)
            raise UnknownModel(f"no live node serves model {model!r}; the pool serves: {served}")
        job = uuid.uuid4().hex
        log.info(
            "route",
            extra={
                "job": job,
                "model": model,
                "chosen": candidates[0].node,
                "candidates": [c.as_log() for c in candidates],
            },
        )
        failures: list[str] = []
        for candidate in candidates[: self.pool.attempts]:
            try:
                assignment = await self.ledger.assign(
                    job,
                    candidate.node,
                    candidate.url,
                    owner=self.owner,
                    idempotent=idempotent,
                    max_attempts=self.pool.attempts,
                    send=True,
                )
            except NotReassignable as refused:
                failures.append(str(refused))
                break
            try:
                return await attempt(candidate, assignment)
            except _NodeFailed as failed:
                await self.ledger.failed(assignment, reached_node=failed.reached)
                failures.append(f"{candidate.node} ({candidate.url}): {failed.reason}")
                log.warning(
                    "failover",
                    extra={
                        "job": job,
                        "model": model,
                        "node": candidate.node,
                        "epoch": assignment.epoch,
                        "reason": failed.reason,
                    },
                )
                self.observer.failover(model, candidate.node, failed.reason)
            except BackendRefused:
                await self.ledger.done(assignment)
                self.observer.finished(endpoint, model, candidate.node, "refused", time.perf_counter() - started)
                raise
        self.observer.finished(endpoint, model, "", "exhausted", time.perf_counter() - started)
        raise PoolExhausted(f"no node could serve model {model!r}: " + "; ".join(failures))


class Stream:
    """A streamed answer past its first token. Iterate ``events()`` exactly once."""

    def __init__(
        self,
        gateway: Gateway,
        assignment: Assignment,
        candidate: Candidate,
        response: httpx.Response,
        events: AsyncIterator[Event],
        head: list[Event],
        started: float,
    ) -> None:
        self.gateway, self.assignment, self.candidate = gateway, assignment, candidate
        self._response, self._events, self._head, self._started = response, events, head, started

    @property
    def node(self) -> str:
        return self.candidate.node

    async def events(self) -> AsyncIterator[Event]:
        """The node's events as they come; a node lost mid-stream ends it with one explicit error event."""
        outcome, finished = "cancelled", False
        timeout = self.gateway.pool.read_timeout_s
        try:
            ended = any(data == _DONE for _, data in self._head)
            for event in self._head:
                yield event
            try:
                while not ended:
                    async with asyncio.timeout(timeout):
                        event = await anext(self._events, _END)
                    if event is _END:
                        break
                    yield event
                    ended = event[1] == _DONE
                if not ended:
                    raise _NodeFailed("the node closed the stream before its end", reached=True)
                outcome, finished = "ok", True
            except (httpx.HTTPError, TimeoutError, _NodeFailed) as error:
                reason = str(error) if isinstance(error, _NodeFailed) else f"{type(error).__name__}: {error}"
                outcome = "broken"
                log.warning("stream broken", extra={"job": self.assignment.job, "node": self.node, "reason": reason})
                yield error_event(
                    f"node {self.node} was lost mid-stream ({reason}); the answer above is incomplete and was not "
                    "re-run elsewhere, because tokens had already been sent",
                    "node_lost",
                )
        finally:
            with anyio.CancelScope(shield=True):  # a client that went away must not skip the bookkeeping
                await self._response.aclose()
                ledger = self.gateway.ledger
                await (ledger.done(self.assignment) if finished else ledger.broken(self.assignment))
                self.gateway.observer.finished(
                    "/chat/completions", self.candidate.model, self.node, outcome, time.perf_counter() - self._started
                )
