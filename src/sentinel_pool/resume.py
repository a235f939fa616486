"""What survives a leader's death for a client's request, and how the client gets it without running it twice.

A client's connection is on one daemon; a request it sends to a follower is passed on to the leader, which hands
it to the daemon of the node that runs it. When the leader dies (or freezes) mid-way, the node may be healthy and
still working. So:

- every inference request through the pool carries a request id (``x-sentinel-request``: the client's own if it
  sent one, else one the first daemon makes), passed from follower to leader to node;
- the node keeps a non-streamed answer under that id (``Kept``) for ``retention_s`` (the last ``MAX_KEPT`` at
  most) and names the ids it holds in its hellos, so whichever daemon leads next can fetch it:
  ``GET /api/requests/{id}`` through any daemon answers the original answer (200), ``202`` while the node still
  works on it, ``404`` when no node holds it;
- a follower whose leader is declared gone (not heard from for ``daemon_ttl_s``, or its connection dropped)
  before the answer began answers 503 ``leader_lost`` with ``x-should-retry: false`` and, for a non-streamed
  request, the id and the URL to fetch the answer from: a retry could run the request a second time;
- a stream that had begun ends with an explicit error event naming the leader, not the node: its tokens cannot
  be resumed (the connection that carried them ran through the dead leader), and nothing is re-run.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp import web

from sentinel_pool.errors import DaemonNotFound, DaemonUnavailable
from sentinel_pool.peer_http import HopLost, relay, unavailable

if TYPE_CHECKING:
    from sentinel_pool.daemon import Daemon

REQUEST_HEADER = "x-sentinel-request"
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("sentinel_pool_request", default=None)
MAX_KEPT = 1000  # answers a node keeps at most (the oldest go first): memory stays bounded whatever the traffic
WATCH_S = 0.05  # how often a relaying follower looks whether its leader is still heard from (a dict lookup)
_INFERENCE = ("/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/api/chat", "/api/generate")


@dataclass
class Kept:
    state: str  # running | done
    status: int = 0
    content_type: str = "application/json"
    body: bytes = b""
    since: float = 0.0  # monotonic


class KeptAnswers:
    """A node's non-streamed answers, by request id, for clients whose leader died before passing them on."""

    def __init__(self, retention_s: float) -> None:
        self.retention_s = retention_s
        self.held: dict[str, Kept] = {}

    def begin(self, rid: str) -> None:
        self.held[rid] = Kept("running", since=time.monotonic())

    def finish(self, rid: str, status: int, content_type: str, body: bytes) -> None:
        self.held[rid] = Kept("done", status, content_type, body, time.monotonic())
        done = [r for r, kept in self.held.items() if kept.state == "done"]  # insertion order: oldest first
        for old in done[: max(0, len(done) - MAX_KEPT)]:
            del self.held[old]

    def ids(self) -> list[str]:
        now = time.monotonic()
        for rid, kept in list(self.held.items()):
            if kept.state == "done" and now - kept.since > self.retention_s:
                del self.held[rid]
        return sorted(self.held)


def kept_request(tail: str, body: bytes) -> bool:
    """Whether a request a node serves is answered in one piece (so it can be kept): OpenAI's routes unless
    ``stream`` is true; Ollama's own only with ``"stream": false`` (they stream by default)."""
    try:
        asked = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    if not isinstance(asked, dict):
        return False
    return asked.get("stream") is False or (asked.get("stream") is None and not tail.startswith("api/"))


async def serve_kept(daemon: Daemon, request: web.Request, rid: str, target: str, body: bytes) -> web.Response:
    """On the node: run a non-streamed request against its backend and keep the answer under ``rid`` even when
    the leader that asked is gone by the time it is ready (the handler runs to its end regardless)."""
    headers = {"content-type": request.headers.get("content-type", "application/json")}
    daemon.answers.begin(rid)
    try:
        async with daemon.session.post(target, data=body, headers=headers, timeout=daemon.client_timeout) as upstream:
            raw = await upstream.read()
            kind = upstream.headers.get("content-type", "application/json")
            status = upstream.status
    except (aiohttp.ClientError, TimeoutError) as error:
        daemon.answers.held.pop(rid, None)
        raise web.HTTPBadGateway(text=json.dumps({"error": f"the model server did not answer: {error}"})) from error
    daemon.answers.finish(rid, status, kind, raw)
    return web.Response(status=status, body=raw, headers={"content-type": kind})


async def forward(daemon: Daemon, request: web.Request, body: bytes) -> web.StreamResponse:
    """On a follower: pass the client's request to the leader, watching that the leader stays heard from."""
    claim = daemon.election.claim
    if claim is None or claim.leader not in daemon.live():
        raise unavailable("no leader is elected right now (an election takes a few heartbeats)")
    inference = request.method == "POST" and request.path in _INFERENCE
    rid = request.headers.get(REQUEST_HEADER) or uuid.uuid4().hex
    lost = asyncio.Event()

    async def watch() -> None:
        while daemon.election.claim == claim and claim.leader in daemon.live():
            await asyncio.sleep(WATCH_S)
        lost.set()

    watcher = asyncio.get_running_loop().create_task(watch())
    hop = f"the leader {claim.leader} (the node running the request may be healthy; this connection ran through it)"
    try:
        return await relay(
            daemon.session,
            request,
            claim.url + request.path_qs,
            body,
            {REQUEST_HEADER: rid} if inference else {},
            daemon.client_timeout,
            hop=hop,
            hop_code="leader_lost",
            lost=lost,
        )
    except aiohttp.ClientConnectorError as error:  # never reached the leader: nothing runs, a retry is safe
        raise unavailable(f"the leader {claim.leader} did not answer: {error}") from error
    except (aiohttp.ClientError, TimeoutError, HopLost) as error:
        reason = "no longer heard from" if isinstance(error, HopLost) else f"{type(error).__name__}: {error}"
        if request.method in ("GET", "HEAD"):  # a read changes nothing: asking again is safe
            raise unavailable(f"the leader {claim.leader} was lost while answering ({reason})") from error
        if not inference:
            caveat = "whether it took effect is unknown: look before repeating"
            raise leader_lost(claim.leader, reason, None, caveat) from error
        if kept_request(request.path.lstrip("/"), body):
            raise leader_lost(claim.leader, reason, rid, "") from error
        caveat = "a stream cannot be resumed, and retrying may run it again"
        raise leader_lost(claim.leader, reason, None, caveat) from error
    finally:
        watcher.cancel()


def leader_lost(leader: str, reason: str, rid: str | None, caveat: str) -> DaemonUnavailable:
    """The leader went away with the client's request in flight: it may have taken effect or be running on a
    node, so no retry is invited; a non-streamed inference request can be fetched by its id."""
    message = f"the leader {leader} was lost while your request was in flight ({reason})"
    detail: dict[str, Any] = {}
    if rid is not None:
        detail = {"request": rid, "resume": f"/api/requests/{rid}"}
        message += (
            f"; it may still run on its node: fetch its answer with GET /api/requests/{rid} through any daemon "
            "instead of retrying"
        )
    else:
        message += f"; {caveat}"
    headers = {"x-should-retry": "false"} | ({REQUEST_HEADER: rid} if rid else {})
    return DaemonUnavailable(message, code="leader_lost", extra=detail, headers=headers, nested=True)


async def fetch(daemon: Daemon, rid: str) -> web.Response:
    """On the leader: a kept answer from whichever node holds it (its hellos say which)."""
    holders = [daemon.config.advertise] if rid in daemon.answers.held else []
    holders += [peer.url for peer in daemon.live().values() if rid in peer.answers]
    for url in holders:
        status, answer = await daemon.peer.call(url, f"/pool/v1/answers/{rid}", None)
        if status == 200 and answer.get("state") == "done":
            raw = bytes.fromhex(answer["body"])
            kind = answer["content_type"]
            return web.Response(status=answer["status"], body=raw, headers={"content-type": kind, REQUEST_HEADER: rid})
        if status == 200:
            return web.json_response({"request": rid, "state": "running"}, status=202, headers={"Retry-After": "1"})
    error = (
        f"no node holds an answer for request {rid}: it never reached one, failed before answering, or was kept "
        f"longer than {daemon.answers.retention_s:.0f} s"
    )
    raise DaemonNotFound(error, code="unknown_request", nested=True)


async def on_answer(daemon: Daemon, request: web.Request) -> web.Response:
    """On the node (signed): one kept answer, its body hex-encoded inside JSON."""
    kept = daemon.answers.held.get(request.match_info["rid"])
    if kept is None:
        raise DaemonNotFound("no such answer here")
    view = {"state": kept.state, "status": kept.status, "content_type": kept.content_type}
    return web.json_response(view | {"body": kept.body.hex()})
