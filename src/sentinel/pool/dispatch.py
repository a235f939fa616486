"""The gateway's core: choose a node, send the request, fail over before the first token, never after it.

Any number of gateway processes can run this side by side: all they share is Redis (the registry and the job
ledger), so there is no leader to elect for routing. A request is a job. Each attempt is an assignment with a new
epoch (``jobs``); a node that cannot be reached, answers 5xx (or 404/408/429: the registry was stale or the
node is overloaded), or drops the connection before the first token is replaced by the next-best node, up to
``pool.attempts`` attempts. Streams are held back until their first token (``streaming``). A 4xx that is the
request's own fault is the client's answer, passed through without failover.

Backends are called with aiohttp: measured on the gateway's path it costs a quarter of the CPU httpx does per
proxied request (bench/pool_overhead.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
import anyio
from redis.asyncio import Redis as AsyncRedis

from sentinel.pool.chat_first import ChatActivity
from sentinel.pool.jobs import Assignment, JobLedger, NotReassignable, StaleEpoch
from sentinel.pool.registry import PoolKeys, Snapshot, snapshot
from sentinel.pool.repair import RepairedStream, is_constrained, offered_tools, repair_answer
from sentinel.pool.routing import Candidate, pool_models, rank
from sentinel.pool.streaming import TRANSPORT_ERRORS, NodeFailed, Observer, Stream, event_blocks, is_output, sse_data
from sentinel.settings import Settings

log = logging.getLogger("sentinel.pool")

T = TypeVar("T")
# Statuses that say "this node, not this request": try another one.
_NODE_STATUSES = {404, 408, 429}
# The node never got the request: connection refused or not established in time.
_NOT_REACHED = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)


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


class _Silent:
    def failover(self, model: str, node: str, reason: str) -> None:
        pass

    def first_token(self, model: str, node: str, seconds: float) -> None:
        pass

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None:
        pass

    def tool_calls(self, model: str, node: str, outcome: str) -> None:
        pass


def _failure(error: BaseException) -> NodeFailed:
    """Connection refused or not made in time: the node never got the request. Anything later: it may have."""
    return NodeFailed(f"{type(error).__name__}: {error}".rstrip(": "), reached=not isinstance(error, _NOT_REACHED))


def _check_status(status: int, text: str) -> None:
    if status < 400:
        return
    if status >= 500 or status in _NODE_STATUSES:
        raise NodeFailed(f"HTTP {status}: {text[:300]}", reached=True)
    try:
        payload: Any = json.loads(text)
    except json.JSONDecodeError:
        payload = text
    raise BackendRefused(status, payload)


class RegistryView:
    """The registry as this gateway last read it, at most ``max_age_s`` ago, plus the jobs it started and ended
    since: under load that spares a Redis round trip per request while its own jobs still count at once (other
    gateways' jobs show up at the next read). ``max_age_s`` 0 reads the registry on every request."""

    def __init__(self, read: Callable[[], Awaitable[Snapshot]], max_age_s: float) -> None:
        self._read, self._max_age = read, max_age_s
        self._snapshot: Snapshot | None = None
        self._read_at = 0.0
        self._since: Counter[tuple[str, str]] = Counter()

    async def current(self) -> Snapshot:
        now = time.monotonic()
        if self._snapshot is None or now - self._read_at >= self._max_age:
            self._snapshot, self._read_at, self._since = await self._read(), now, Counter()
        if not self._since:
            return self._snapshot
        active = Counter(self._snapshot.active)
        active.update(self._since)
        return Snapshot(self._snapshot.nodes, {key: max(0, count) for key, count in active.items()})

    def started(self, a: Assignment) -> None:
        self._since[(a.node, a.url)] += 1

    def ended(self, a: Assignment) -> None:
        self._since[(a.node, a.url)] -= 1


@dataclass(frozen=True)
class Completed:
    answer: dict[str, Any]  # the node's JSON answer, as it gave it
    node: str


class Gateway:
    def __init__(
        self,
        settings: Settings,
        redis: AsyncRedis,
        session: aiohttp.ClientSession,
        *,
        keys: PoolKeys | None = None,
        observer: Observer | None = None,
    ) -> None:
        self.pool = settings.pool
        self.redis, self.session = redis, session
        self.keys = keys or PoolKeys.from_settings(settings)
        self.ledger = JobLedger(redis, self.keys, self.pool.job_ttl_s)
        self.observer: Observer = observer or _Silent()
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=self.pool.connect_timeout_s, sock_read=self.pool.first_token_timeout_s
        )
        self._background: set[asyncio.Task[Any]] = set()
        self._view = RegistryView(self.snapshot, self.pool.registry_refresh_s)
        # A chat a crashed gateway never closed stops counting after the longest a request may stay silent.
        self.chats = ChatActivity(redis, self.keys, self.pool.first_token_timeout_s + self.pool.read_timeout_s)
        self._chats_open: dict[tuple[str, int], tuple[str, str]] = {}

    async def snapshot(self) -> Snapshot:
        return await snapshot(self.redis, self.keys)

    async def models(self) -> dict[str, list[str]]:
        return pool_models(await self.snapshot())

    def _after_reply(self, work: Coroutine[Any, Any, Any]) -> None:
        """Bookkeeping that need not delay the client (one Redis round trip less on its path)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def end(self, a: Assignment, state: str) -> None:
        """Close an assignment in the ledger: ``done``, ``broken`` (after output), ``lost`` or ``unsent``."""
        self._view.ended(a)
        if (chat := self._chats_open.pop((a.job, a.epoch), None)) is not None:
            await self.chats.ended(*chat)
        if state == "done":
            await self.ledger.done(a)
        elif state == "broken":
            await self.ledger.broken(a)
        else:
            await self.ledger.failed(a, reached_node=state == "lost")

    async def complete(
        self, endpoint: str, body: dict[str, Any], *, idempotent: bool = True, background: bool = False
    ) -> Completed:
        """A non-streaming call (``/chat/completions``, ``/embeddings``) with failover; the node's JSON answer.
        A chat completion counts as a chat in flight (``chat_first``) unless it is ``background`` work."""
        started = time.perf_counter()

        async def attempt(candidate: Candidate, assignment: Assignment) -> Completed:
            url, request = candidate.url + endpoint, body | {"model": candidate.model}
            try:
                async with self.session.post(url, json=request, timeout=self._timeout) as response:
                    text = await response.text()
            except TRANSPORT_ERRORS as error:
                raise _failure(error) from error
            _check_status(response.status, text)
            try:
                answer: dict[str, Any] = json.loads(text)
            except json.JSONDecodeError as error:
                raise NodeFailed(f"answer is not JSON: {text[:200]!r}", reached=True) from error
            self._after_reply(self.end(assignment, "done"))
            self.observer.finished(endpoint, candidate.model, candidate.node, "ok", time.perf_counter() - started)
            if endpoint == "/chat/completions" and (tools := offered_tools(body)):
                answer, verdict = repair_answer(answer, tools, is_constrained(body))
                verdict.report(self.observer, candidate.model, candidate.node)
            return Completed(answer, candidate.node)

        chat = endpoint == "/chat/completions" and not background
        return await self._with_failover(endpoint, body, idempotent, started, attempt, chat=chat)

    async def stream(
        self, body: dict[str, Any], *, idempotent: bool = True, background: bool = False
    ) -> Stream | RepairedStream:
        """Open a streamed chat completion on the best node that gets to its first token (text calls repaired
        when the request offers tools)."""
        started = time.perf_counter()

        async def attempt(candidate: Candidate, assignment: Assignment) -> Stream:
            url, request = f"{candidate.url}/chat/completions", body | {"model": candidate.model}
            try:
                response = await self.session.post(url, json=request, timeout=self._timeout)
            except TRANSPORT_ERRORS as error:
                raise _failure(error) from error
            try:
                if response.status >= 400:
                    _check_status(response.status, await response.text())
                blocks = event_blocks(response)
                head: list[bytes] = []
                async for block in blocks:
                    head.append(block)
                    if any(is_output(data) for data in sse_data(block)):
                        break
                else:
                    raise NodeFailed("the stream ended before its first token", reached=True)
                await self.ledger.streaming(assignment)
            except TRANSPORT_ERRORS as error:
                response.close()
                raise _failure(error) from error
            except StaleEpoch as stale:
                response.close()
                raise Superseded(str(stale)) from stale
            except BaseException:
                response.close()
                raise
            self.observer.first_token(candidate.model, candidate.node, time.perf_counter() - started)
            timeout = self.pool.read_timeout_s
            return Stream(self.end, self.observer, timeout, assignment, candidate, response, blocks, head, started)

        opened = await self._with_failover("/chat/completions", body, idempotent, started, attempt, chat=not background)
        tools = offered_tools(body)
        return RepairedStream(opened, tools, self.observer, is_constrained(body)) if tools else opened

    async def _with_failover(
        self,
        endpoint: str,
        body: dict[str, Any],
        idempotent: bool,
        started: float,
        attempt: Callable[[Candidate, Assignment], Awaitable[T]],
        *,
        chat: bool,
    ) -> T:
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise BadRequest("the request has no 'model': name one of the pool's models (GET /v1/models)")
        pool = await self._view.current()
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
            self._view.started(assignment)
            if chat:
                self._chats_open[(job, assignment.epoch)] = (candidate.url, await self.chats.started(candidate.url))
            try:
                return await attempt(candidate, assignment)
            except NodeFailed as failed:
                await self.end(assignment, "lost" if failed.reached else "unsent")
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
                await self.end(assignment, "done")
                self.observer.finished(endpoint, model, candidate.node, "refused", time.perf_counter() - started)
                raise
            except BaseException:  # cancelled (the client left, shutdown): the job must not stay in flight
                with anyio.CancelScope(shield=True):
                    await self.end(assignment, "lost")
                raise
        self.observer.finished(endpoint, model, "", "exhausted", time.perf_counter() - started)
        raise PoolExhausted(f"no node could serve model {model!r}: " + "; ".join(failures))
