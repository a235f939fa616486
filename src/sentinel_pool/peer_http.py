"""HTTP between daemons and towards clients: signed calls to another daemon, and streaming pass-through.

``PeerClient.call`` signs every request with the pool secret (``signing``) and answers ``(status, json)`` with
status ``UNREACHED`` (0) when no connection was made (the request never left this machine) and ``UNKNOWN`` (-1)
when it was sent and no answer came in time (a frozen or overloaded peer may still act on it): callers decide
what each means, never "done". ``relay``
passes a request through to another URL and streams its answer back unchanged (how a follower forwards a client
to the leader, and how the leader hands a request to the daemon of the node that runs it).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any, TypeVar

import aiohttp
from aiohttp import web

from sentinel.keys import LiveKeyRing, Scope
from sentinel_pool.errors import DaemonRefused, DaemonUnavailable
from sentinel_pool.signing import HEADER, sign
from sentinel_pool.streaming import error_event

# Headers that describe one hop's connection, not the message (RFC 9110 section 7.6.1), plus what aiohttp sets.
_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "content-length",
    "content-encoding",
}


UNREACHED, UNKNOWN = 0, -1
T = TypeVar("T")


class PeerClient:
    def __init__(self, session: aiohttp.ClientSession, secret: str, timeout_s: float) -> None:
        self.session, self._secret = session, secret
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)

    def headers(self, method: str, path: str, body: bytes) -> dict[str, str]:
        return {HEADER: sign(self._secret, method, path, body), "content-type": "application/json"}

    async def call(self, url: str, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
        method = "GET" if body is None else "POST"
        raw = b"" if body is None else json.dumps(body).encode()
        try:
            async with self.session.request(
                method, url + path, data=raw, headers=self.headers(method, path, raw), timeout=self._timeout
            ) as response:
                text = await response.text()
                try:
                    answer = json.loads(text) if text else {}
                except json.JSONDecodeError:
                    answer = {"error": text[:300]}
                return response.status, answer if isinstance(answer, dict) else {"answer": answer}
        except aiohttp.ClientConnectorError as error:  # no connection: nothing was sent
            # refused: the machine answered and nothing listens on the port, so the daemon is not running
            refused = isinstance(error.os_error, ConnectionRefusedError)
            return UNREACHED, {"error": f"{type(error).__name__}: {error}", "refused": refused}
        except (aiohttp.ClientError, TimeoutError) as error:  # sent, or maybe sent: its fate is not known here
            return UNKNOWN, {"error": f"no answer: {type(error).__name__}: {error}"}


class HopLost(Exception):
    """The daemon a relay goes through was declared gone (``lost`` set) before its answer began."""


async def _unless(lost: asyncio.Event | None, work: Awaitable[T]) -> T:
    """``work``'s result, or ``HopLost`` (``work`` cancelled) as soon as ``lost`` is set."""
    if lost is None:
        return await work
    task, waiter = asyncio.ensure_future(work), asyncio.ensure_future(lost.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task.done():
        return task.result()
    task.cancel()
    raise HopLost


async def relay(
    session: aiohttp.ClientSession,
    request: web.Request,
    url: str,
    body: bytes,
    extra_headers: dict[str, str],
    timeout: aiohttp.ClientTimeout,
    answer_headers: dict[str, str] | None = None,
    *,
    hop: str = "the node",
    hop_code: str = "node_lost",
    lost: asyncio.Event | None = None,
) -> web.StreamResponse:
    """Send ``request`` (with ``body``) to ``url`` and stream the answer back as it comes. Raises
    ``aiohttp.ClientError``/``TimeoutError`` (or ``HopLost`` once ``lost`` is set) only before the answer has
    started (the caller decides what to say); after, the answer ends with an explicit error naming ``hop``, the
    daemon or server that was lost, so the client is not told a healthy node failed."""
    headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP and k.lower() != HEADER}
    upstream = await _unless(
        lost, session.request(request.method, url, data=body, headers=headers | extra_headers, timeout=timeout)
    )
    try:
        answer = web.StreamResponse(
            status=upstream.status,
            headers={k: v for k, v in upstream.headers.items() if k.lower() not in _HOP} | (answer_headers or {}),
        )
        await answer.prepare(request)
        kind = upstream.headers.get("content-type", "")
        try:
            while chunk := await _unless(lost, upstream.content.readany()):
                await answer.write(chunk)
        except (aiohttp.ClientError, TimeoutError) as error:  # the answer has begun: end it, saying so
            await answer.write(_broken(kind, hop, hop_code, f"{type(error).__name__}: {error}"))
        except HopLost:
            await answer.write(_broken(kind, hop, hop_code, "no longer heard from"))
        await answer.write_eof()
        return answer
    finally:
        upstream.release()


def _broken(content_type: str, hop: str, code: str, reason: str) -> bytes:
    """The explicit last message of an answer cut mid-way, in the answer's own framing."""
    message = f"{hop} was lost mid-answer ({reason}); what came before is incomplete and was not re-run"
    if content_type.startswith("text/event-stream"):
        return error_event(message, code)
    return json.dumps({"error": message, "code": code}).encode() + b"\n"


# Client routes that change something: jobs, pulling a model onto a node, waking a node.
WRITES = ("/api/jobs", "/api/pull", "/api/nodes/wake/")


def check_client(keys: LiveKeyRing | None, request: web.Request) -> None:
    """The API's scoped keys, as on the API: any key for inference and reading, a write key for jobs; raises
    ``DaemonRefused`` (401, 403) for any other, lets it through when no key is configured."""
    if keys is None:
        return
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    scope = keys.scope_of(key.strip()) if scheme.lower() == "bearer" else None
    if scope is None:
        error = "missing or unknown API key: send 'Authorization: Bearer <key>'"
        raise DaemonRefused(error, status=401)
    if request.method == "POST" and request.path.startswith(WRITES) and scope is not Scope.WRITE:
        raise DaemonRefused(f"{request.path} needs a write-scoped key; this key is read-only", status=403)


def unavailable(message: str) -> DaemonUnavailable:
    """503 with ``Retry-After``, to raise: no leader right now (an election takes about ``daemon_ttl_s``), or none
    answered."""
    return DaemonUnavailable(message, code="no_leader", nested=True, headers={"Retry-After": "1"})
