"""What the leading daemon does with a client's request: waking a sleeping node that alone serves the model
(``wake``), then the pool's one router (``dispatch.Gateway`` through ``face``: admission, the breaker,
idempotency keys, both dialects, tool-call repair), which hands the request to the chosen node's daemon."""

from __future__ import annotations

import json
import time
from collections import Counter
from contextlib import suppress
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp import web
from aiohttp.typedefs import Handler

from sentinel.providers.servers import OLLAMA, speaks
from sentinel_pool import face, resume
from sentinel_pool.errors import DaemonBadInput, DaemonError, DaemonNotFound, DaemonUnavailable, GatewayError
from sentinel_pool.leader_jobs import QUEUED_NOTE
from sentinel_pool.peer_http import relay, unavailable
from sentinel_pool.routing import pool_models
from sentinel_pool.wake import WakeRefused

if TYPE_CHECKING:
    from sentinel_pool.daemon import Daemon
    from sentinel_pool.leader_jobs import LeaderJobs

BACKEND_HEADER = "x-sentinel-backend"


async def send(request: web.Request, reply: face.Reply) -> web.StreamResponse:
    """A face's reply as aiohttp's response; a stream is closed (its bookkeeping run) even if the client left."""
    if reply.stream is None:
        return web.json_response(reply.body, status=reply.status, headers=reply.headers)
    answer = web.StreamResponse(status=reply.status, headers=reply.headers | {"content-type": reply.media_type})
    try:
        await answer.prepare(request)
        async for chunk in reply.stream:
            await answer.write(chunk if isinstance(chunk, bytes) else chunk.encode())
        await answer.write_eof()
    finally:
        with suppress(AttributeError):
            await reply.stream.aclose()  # type: ignore[union-attr]  # every face stream is an async generator
    return answer


@web.middleware
async def pool_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The daemon's one answer to what the pool cannot serve, on every route: OpenAI's or Ollama's error shape,
    with its status and headers (``face.error_reply``). A route raises it before its answer starts (a stream's
    later failure is the stream's own last event), so no path answers it as a bare 500. A ``DaemonError`` (the
    daemon's own routes) is answered in its own shape, with its kind's status."""
    try:
        return await handler(request)
    except GatewayError as error:
        return await send(request, face.error_reply(error, request.path))
    except DaemonError as error:
        return web.json_response(error.body(), status=error.status, headers=error.headers())


async def lead(daemon: Daemon, request: web.Request, body: bytes, leader: LeaderJobs) -> web.StreamResponse:
    """Any client route, on the leader: jobs, kept answers, the cluster, pulls, wakes, inference."""
    path = request.path
    if path == "/api/jobs" and request.method == "POST":
        submitted = json.loads(body or b"{}")
        kind = submitted.get("kind", "inference")
        if kind not in ("inference", "shell"):
            raise DaemonBadInput("'kind' must be 'inference' or 'shell'")
        job = leader.submit(kind, submitted, bool(submitted.get("idempotent", False)))
        kept = {"result_kept_s": daemon.config.routing.job_ttl_s}
        return web.json_response(job.view() | kept | {"note": QUEUED_NOTE}, status=202)
    if path.startswith("/api/jobs/"):
        job_id, _, action = path.removeprefix("/api/jobs/").partition("/")
        if action == "ack":
            return web.json_response({"acknowledged": leader.ack(job_id)})
        known = leader.jobs.get(job_id)
        if known is None:
            note = "unknown to this leader: finished and acknowledged, or queued under a leader that died"
            raise DaemonNotFound(f"job {job_id} is {note}", extra={"state": "unknown"})
        return web.json_response(known.view())
    if path.startswith("/api/requests/") and request.method == "GET":
        return await resume.fetch(daemon, path.removeprefix("/api/requests/"))
    if path == "/api/cluster":
        return web.json_response(cluster(daemon, leader))
    if path == "/api/pull" and request.method == "POST":
        return await pull(daemon, request, body)
    if path.startswith("/api/nodes/wake/") and request.method == "POST":
        return wake_by_hand(daemon, path.removeprefix("/api/nodes/wake/"))
    return await route(daemon, request, body)


async def route(daemon: Daemon, request: web.Request, body: bytes) -> web.StreamResponse:
    """An inference route or a listing, on the leader."""
    if request.path in face.LISTINGS:
        return await send(request, await face.listing(daemon.gateway, request.path))
    if request.path not in face.INFERENCE:
        known = ", ".join((*face.INFERENCE, *face.LISTINGS, "/api/pull", "/api/jobs", "/api/cluster"))
        raise DaemonNotFound(f"no route {request.path}; the pool serves {known}")
    try:
        model = str(json.loads(body).get("model") or "")
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        model = ""  # the face says what is wrong with the body
    await daemon.waker.on_demand(model)
    return await send(request, await face.answer(daemon.gateway, request.path, body, request.headers))


def cluster(daemon: Daemon, leader: LeaderJobs) -> dict[str, Any]:
    """Every node: up (backends, models, free VRAM, requests and jobs in flight) or asleep (wakeable, last
    seen, what it served); the leader; the queue; the jobs."""
    pool, now = daemon.snapshot(), time.time()
    jobs_on = Counter(job.node for job in leader.jobs.values() if job.state in ("running", "unreachable"))
    nodes: list[dict[str, Any]] = [
        {
            "node": record.node,
            "state": "up",
            "vram_free_mb": record.vram_free_mb,
            "in_flight": pool.active_on(record.node),
            "jobs_running": jobs_on[record.node],
            "wakeable": record.node in daemon.waker.known,
            "backends": [
                b.model_dump() | {"in_flight": pool.active.get((record.node, b.url), 0)} for b in record.backends
            ],
        }
        for record in pool.nodes
    ]
    up = {record.node for record in pool.nodes}
    for name, sleeper in sorted(daemon.waker.known.items()):
        if name not in up:
            nodes.append(
                {
                    "node": name,
                    "state": "asleep",
                    "wakeable": True,
                    "seen_s_ago": round(now - sleeper.last_seen, 1),
                    "models": sorted(sleeper.models),
                }
            )
    claim = daemon.election.claim
    return {
        "leader": claim.as_dict() if claim else None,
        "nodes": nodes,
        "models": pool_models(pool),
        "queue": {
            "waiting": daemon.gateway.scheduler.queued,
            "max": daemon.config.routing.queue_max,
            "rejected": daemon.gateway.scheduler.rejected,
        },
        "totals": {
            "nodes_up": len(pool.nodes),
            "nodes_asleep": len(nodes) - len(pool.nodes),
            "in_flight": sum(pool.active.values()),
            "vram_free_mb": sum(record.vram_free_mb or 0 for record in pool.nodes),
        },
        "jobs": [job.view() for job in leader.jobs.values()],
    }


async def pull(daemon: Daemon, request: web.Request, body: bytes) -> web.StreamResponse:
    """Ollama's ``/api/pull``, forwarded to one node's Ollama: the one named (``?node=`` or ``"node"`` in the
    body), else the Ollama node with the most free VRAM (ties: by name). Its progress streams back unchanged."""
    try:
        asked = json.loads(body or b"{}")
    except json.JSONDecodeError as error:
        raise DaemonBadInput("the request body is not JSON") from error
    if not isinstance(asked, dict) or not asked.get("model"):
        raise DaemonBadInput('name the model to pull: {"model": "qwen3:8b"}')
    wanted = request.query.get("node") or asked.pop("node", None)
    pool, urls = daemon.snapshot(), daemon.urls()
    ollamas = [
        (record, backend)
        for record in pool.nodes
        for backend in record.backends
        if speaks(backend.kind, OLLAMA) and not backend.problem and record.node in urls
    ]
    if wanted:
        ollamas = [(r, b) for r, b in ollamas if r.node == wanted]
    if not ollamas:
        where = f"node {wanted!r} has" if wanted else "no live node has"
        raise DaemonNotFound(f"{where} no Ollama backend to pull into (only Ollama pulls models)")
    record, backend = min(ollamas, key=lambda rb: (-(rb[0].vram_free_mb or 0), rb[0].node))
    raw = json.dumps(asked).encode()
    signed = daemon.peer.headers("POST", "/pool/v1/serve/api/pull", raw)
    try:
        return await relay(
            daemon.session,
            request,
            f"{urls[record.node]}/pool/v1/serve/api/pull",
            raw,
            signed | {BACKEND_HEADER: backend.url},
            daemon.client_timeout,
            {"x-sentinel-node": record.node},
        )
    except (aiohttp.ClientError, TimeoutError) as error:
        raise unavailable(f"{record.node} did not answer the pull: {error}") from error


def wake_by_hand(daemon: Daemon, node: str) -> web.Response:
    try:
        sleeper = daemon.waker.send(node)
    except WakeRefused as refused:
        raise DaemonNotFound(str(refused)) from refused
    except OSError as error:  # the packet could not leave this machine: 502, a gateway that could not pass it on
        raise DaemonUnavailable(f"the magic packet could not be sent: {error}", status=502) from error
    sent = {"node": node, "mac": sleeper.mac, "sent_to": f"{sleeper.address}:{sleeper.port}"}
    return web.json_response(sent | {"note": "sent; the node joins the pool once it is up"}, status=202)


def metrics_text(daemon: Daemon) -> bytes:
    leader, claim = daemon.leader, daemon.election.claim
    jobs = Counter(job.state for job in leader.jobs.values()) if leader is not None else Counter()
    state = {
        "leading": float(daemon.election.leading),
        "term": float(claim.term if claim else daemon.election.highest_term),
        "peers": float(len(daemon.live()) + 1),
        "queued": float(daemon.gateway.scheduler.queued),
        "rejected": float(daemon.gateway.scheduler.rejected),
        "sticky": float(daemon.gateway.scheduler.sticky.hits),
        "wakes": float(daemon.waker.sent),
    }
    return daemon.metrics.render(daemon.snapshot(), state, dict(jobs))
