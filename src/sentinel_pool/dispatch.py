"""The pool's one router: choose a node, send the request, fail over before the first token, never after it.

Two places run it, with the same rules: the API's gateway, where any number of processes run side by side and
share only Redis (the registry and the job ledger: ``api_gateway.on_redis``), and the daemon pool's elected leader,
which keeps both in its memory and hands each request to the chosen node's daemon (``Via``). A request is a job.
Each attempt is an assignment with a new epoch (``jobs``); a node that cannot be reached, answers 5xx (or
404/408/429: the registry was stale or the node is overloaded), or drops the connection before the first token
is replaced by the next-best node, up to ``pool.attempts`` attempts. Streams are held back until their first
token (``streaming``). A 4xx that is the request's own fault is the client's answer, passed through without
failover.

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
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
import anyio
from redis.exceptions import RedisError

from sentinel.providers.servers import OLLAMA, speaks
from sentinel.serving import root_url
from sentinel.settings import PoolSettings
from sentinel_pool.admission import Sticky, conversation_key
from sentinel_pool.breaker import Breaker
from sentinel_pool.chat_first import ChatActivity
from sentinel_pool.errors import (
    BackendRefused,
    BadRequest,
    PoolBusy,
    PoolExhausted,
    RegistryUnavailable,
    Superseded,
    UnknownModel,
    job_id,
)
from sentinel_pool.gateway_wiring import Ledger, Silent, Via, direct
from sentinel_pool.jobs import Assignment, NotReassignable, StaleEpoch
from sentinel_pool.node_faults import check_status, failure
from sentinel_pool.ollama_native import Target
from sentinel_pool.ollama_native import show as show_openai
from sentinel_pool.registry import Snapshot
from sentinel_pool.repair import Opening, RepairedStream, is_constrained, offered_tools, repair_answer
from sentinel_pool.routing import Candidate, pool_models, rank
from sentinel_pool.scheduler import Choice, Limits, NothingToChoose, RegistryView, Scheduler
from sentinel_pool.streaming import SSE, TRANSPORT_ERRORS, NodeFailed, Observer, Stream

log = logging.getLogger("sentinel.pool")

T = TypeVar("T")


@dataclass(frozen=True)
class _How:
    """What kind of request a job is: its endpoint, whether it may run twice, whether it is a chat a
    maintenance pass yields to, and the client's idempotency key (None: none sent)."""

    endpoint: str
    idempotent: bool
    chat: bool
    idempotency_key: str | None
    conversation: str | None = None  # the client's x-sentinel-conversation, if it sent one


@dataclass(frozen=True)
class Completed:
    answer: dict[str, Any]  # the node's JSON answer, as it gave it
    node: str
    native: bool = False  # it came from an Ollama node's own API (``ollama_native``), not the OpenAI one
    sticky: bool = False  # it went to the node holding its conversation


class Gateway:
    def __init__(
        self,
        pool: PoolSettings,
        session: aiohttp.ClientSession,
        *,
        read: Callable[[], Awaitable[Snapshot]],
        ledger: Ledger,
        chats: ChatActivity | None = None,
        via: Via = direct,
        observer: Observer | None = None,
        first_call: Opening | None = None,
    ) -> None:
        self.pool, self.session, self.ledger, self.chats, self._via = pool, session, ledger, chats, via
        # which calls may open a turn, when the pool constrains a turn's first answer (the app's to say)
        self.first_call = first_call if pool.constrain_first_call else None
        self._read = read
        self.observer: Observer = observer or Silent()
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=self.pool.connect_timeout_s, sock_read=self.pool.first_token_timeout_s
        )
        self._background: set[asyncio.Task[Any]] = set()
        self._view = RegistryView(self.snapshot, self.pool.registry_refresh_s)
        self.breaker = Breaker(pool.breaker_failures, pool.breaker_cooldown_s, pool.breaker_max_cooldown_s)
        limits = Limits(pool.node_max_jobs, pool.queue_max, pool.queue_wait_s, max(0.5, pool.registry_refresh_s))
        self.scheduler = Scheduler(self._view, self.breaker, Sticky(pool.sticky_slack), limits)
        self._chats_open: dict[tuple[str, int], tuple[str, str]] = {}

    async def snapshot(self) -> Snapshot:
        return await self._read()

    async def _post(self, candidate: Candidate, url: str, request: dict[str, Any]) -> aiohttp.ClientResponse:
        raw = json.dumps(request).encode()
        target, headers = self._via(candidate, url, raw)
        return await self.session.post(target, data=raw, headers=headers, timeout=self._timeout)

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
        self.scheduler.wake()
        if (chat := self._chats_open.pop((a.job, a.epoch), None)) is not None and self.chats is not None:
            await self.chats.ended(*chat)
        if state == "done":
            await self.ledger.done(a)
        elif state == "broken":
            await self.ledger.broken(a)
        else:
            await self.ledger.failed(a, reached_node=state == "lost")

    async def complete(
        self,
        endpoint: str,
        body: dict[str, Any],
        *,
        idempotent: bool = True,
        background: bool = False,
        idempotency_key: str | None = None,
        target: Target | None = None,
        conversation: str | None = None,
    ) -> Completed:
        """A non-streaming call (``/chat/completions``, ``/completions``, ``/embeddings``) with failover; the
        node's JSON answer. ``target`` sends it elsewhere on some nodes (Ollama's own API: ``ollama_native``).
        A chat completion counts as a chat in flight (``chat_first``) unless it is ``background`` work."""
        started = time.perf_counter()

        async def attempt(choice: Choice, assignment: Assignment, budget_s: float) -> Completed:
            candidate = choice.candidate
            out = target(candidate) if target else None
            url, request = (out.url, out.body) if out else (candidate.url + endpoint, body | {"model": candidate.model})
            try:
                async with asyncio.timeout(budget_s):  # the whole answer is "before the first token"
                    async with await self._post(candidate, url, request) as response:
                        text = await response.text()
            except TRANSPORT_ERRORS as error:
                raise failure(error) from error
            check_status(response.status, text)
            try:
                answer: dict[str, Any] = json.loads(text)
            except json.JSONDecodeError as error:
                raise NodeFailed(f"answer is not JSON: {text[:200]!r}", reached=True) from error
            self._after_reply(self.end(assignment, "done"))
            self.observer.finished(endpoint, candidate.model, candidate.node, "ok", time.perf_counter() - started)
            if endpoint == "/chat/completions" and not out and (tools := offered_tools(body)):
                answer, verdict = repair_answer(answer, tools, is_constrained(body))
                verdict.report(self.observer, candidate.model, candidate.node)
            return Completed(answer, candidate.node, native=out is not None, sticky=choice.sticky)

        chat = endpoint in ("/chat/completions", "/completions") and not background
        how = _How(endpoint, idempotent, chat, idempotency_key, conversation)
        with self._registry_faults(endpoint):
            return await self._failover(body, how, started, attempt)

    async def stream(
        self,
        body: dict[str, Any],
        *,
        idempotent: bool = True,
        background: bool = False,
        idempotency_key: str | None = None,
        endpoint: str = "/chat/completions",
        target: Target | None = None,
        conversation: str | None = None,
    ) -> Stream | RepairedStream:
        """Open a streamed completion on the best node that gets to its first token (text calls repaired when a
        chat request offers tools and the node speaks OpenAI). ``target``: as for ``complete``."""
        started = time.perf_counter()

        async def attempt(choice: Choice, assignment: Assignment, budget_s: float) -> Stream:
            candidate = choice.candidate
            out = target(candidate) if target else None
            url, request = (out.url, out.body) if out else (candidate.url + endpoint, body | {"model": candidate.model})
            framing = out.framing if out else SSE
            try:
                async with asyncio.timeout(budget_s):
                    response = await self._post(candidate, url, request)
            except TRANSPORT_ERRORS as error:
                raise failure(error) from error
            try:
                async with asyncio.timeout(budget_s):
                    if response.status >= 400:
                        check_status(response.status, await response.text())
                    blocks = framing.blocks(response)
                    head: list[bytes] = []
                    async for block in blocks:
                        head.append(block)
                        if framing.has_output(block):
                            break
                    else:
                        raise NodeFailed("the stream ended before its first token", reached=True)
                await self.ledger.streaming(assignment)
            except TRANSPORT_ERRORS as error:
                response.close()
                raise failure(error) from error
            except StaleEpoch as stale:
                response.close()
                raise Superseded(str(stale)) from stale
            except BaseException:
                response.close()
                raise
            self.observer.first_token(candidate.model, candidate.node, time.perf_counter() - started)
            timeout = self.pool.read_timeout_s
            parts = (assignment, candidate, response, blocks, head, started, framing)
            return Stream(self.end, self.observer, timeout, *parts, sticky=choice.sticky)

        how = _How(endpoint, idempotent, not background, idempotency_key, conversation)
        with self._registry_faults(endpoint):
            opened = await self._failover(body, how, started, attempt)
        tools = offered_tools(body) if endpoint == "/chat/completions" and opened.framing is SSE else None
        return RepairedStream(opened, tools, self.observer, is_constrained(body)) if tools else opened

    async def show(self, model: str) -> dict[str, Any]:
        """Ollama's ``/api/show`` for ``model``: asked of the best Ollama node serving it (metadata, not a job),
        else what the pool knows of it on an OpenAI-compatible node."""
        ranked = rank(await self._view.current(), model)
        if not ranked:
            raise UnknownModel(f"no live node serves model {model!r}; GET /api/tags lists the pool's models")
        failures, ollamas = [], [c for c in ranked if speaks(c.kind, OLLAMA)]
        for candidate in ollamas[: self.pool.attempts]:
            url = root_url(candidate.url) + "/api/show"
            try:
                async with await self._post(candidate, url, {"model": candidate.model}) as response:
                    text = await response.text()
                check_status(response.status, text)
                answer: dict[str, Any] = json.loads(text)
                return answer
            except (*TRANSPORT_ERRORS, NodeFailed, json.JSONDecodeError) as error:
                failures.append(f"{candidate.node}: {error}")
        if failures and len(ollamas) == len(ranked):
            raise PoolExhausted(
                "no node could show " + repr(model) + ": " + "; ".join(failures), retry_after_s=1, retry=True
            )
        return show_openai(next(c for c in ranked if not speaks(c.kind, OLLAMA)))

    @contextmanager
    def _registry_faults(self, endpoint: str) -> Iterator[None]:
        """The registry's own failures said as such: an attempt turns every error of its node into ``NodeFailed``,
        so a Redis or OS error that leaves ``_failover`` is the registry's (Redis down, or no descriptor left for a
        connection to it), and the answer is a 503 naming it, not a plain 500."""
        try:
            yield
        except (RedisError, OSError) as error:
            self.observer.finished(endpoint, "", "", "registry_down", 0.0)
            raise RegistryUnavailable(
                f"the pool's registry (Redis) could not be used: {type(error).__name__}: {error}; "
                "retry in a moment, and check that Redis is up (SENTINEL_REDIS_URL)"
            ) from error

    async def _failover(
        self,
        body: dict[str, Any],
        how: _How,
        started: float,
        attempt: Callable[[Choice, Assignment, float], Awaitable[T]],
    ) -> T:
        """Attempts on the best nodes in turn, each chosen and counted at once (``scheduler``; waiting in its
        queue while every node is full), at most ``attempts`` per job (an ``Idempotency-Key``'s retries
        included), all within ``request_timeout_s``."""
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise BadRequest("the request has no 'model': name one of the pool's models (GET /v1/models)")
        job = job_id(how.idempotency_key)
        conversation = conversation_key(body, how.conversation)
        pool = await self._view.current()
        if not rank(pool, model):
            served = ", ".join(pool_models(pool)) or "none (no node is registered)"
            self.observer.finished(how.endpoint, model, "", "unknown_model", time.perf_counter() - started)
            raise UnknownModel(f"no live node serves model {model!r}; the pool serves: {served}")
        deadline = time.monotonic() + self.pool.request_timeout_s
        tried: set[tuple[str, str]] = set()
        failures: list[str] = []
        retry_after = self.pool.breaker_cooldown_s
        dispatched = final = False
        while len(tried) < self.pool.attempts:
            try:
                choice = await self.scheduler.turn(model, tried, conversation, deadline - time.monotonic())
            except NothingToChoose as none:
                failures.extend(none.reasons)
                retry_after = none.retry_after_s or retry_after
                break
            except PoolBusy:
                self.observer.finished(how.endpoint, model, "", "busy", time.perf_counter() - started)
                raise
            candidate = choice.candidate
            key = (candidate.node, candidate.url)
            tried.add(key)
            route = {"job": job, "model": model, "chosen": candidate.node}
            log.info("route", extra=route | {"candidates": [c.as_log() for c in choice.ranked]})
            try:
                assignment = await self.ledger.assign(
                    job,
                    candidate.node,
                    candidate.url,
                    owner=self.owner,
                    idempotent=how.idempotent,
                    max_attempts=self.pool.attempts,
                    send=True,
                )
            except BaseException as error:
                self._view.unreserve(key)
                self.breaker.released(key)
                self.scheduler.wake()
                if not isinstance(error, NotReassignable):
                    raise
                failures.append(str(error))
                final = True  # the job's own record says no: a retry would be told the same
                break
            dispatched = True
            self._view.started(assignment, reserved=True)
            if how.chat and self.chats is not None:
                self._chats_open[(job, assignment.epoch)] = (candidate.url, await self.chats.started(candidate.url))
            try:
                result = await attempt(choice, assignment, max(0.001, deadline - time.monotonic()))
            except NodeFailed as failed:
                self.breaker.failed(key)
                await self.end(assignment, "lost" if failed.reached else "unsent")
                failures.append(f"{candidate.node} ({candidate.url}): {failed.reason}")
                log.warning("failover", extra=route | {"epoch": assignment.epoch, "reason": failed.reason})
                self.observer.failover(model, candidate.node, failed.reason)
                if time.monotonic() >= deadline:
                    failures.append(f"the request's {self.pool.request_timeout_s:g} s (request_timeout_s) are spent")
                    break
                continue
            except BackendRefused:
                self.breaker.succeeded(key)  # the node is fine: the request was at fault
                await self.end(assignment, "done")
                self.observer.finished(how.endpoint, model, candidate.node, "refused", time.perf_counter() - started)
                raise
            except BaseException:  # cancelled (the client left, shutdown): the job must not stay in flight
                self.breaker.released(key)
                with anyio.CancelScope(shield=True):
                    await self.end(assignment, "lost")
                raise
            self.breaker.succeeded(key)
            return result
        self.observer.finished(how.endpoint, model, "", "exhausted", time.perf_counter() - started)
        message = f"no node could serve model {model!r}: " + "; ".join(failures)
        raise PoolExhausted(message, retry_after_s=retry_after, retry=not (dispatched or final))
