"""What a node's daemon answers the leader (every request signed): a job to start, fenced by term and epoch
(``node_jobs``), a poll of one it holds, its acknowledgement, and a client's request to pass to one of this
node's own model servers (``serve``, its answer kept for a resume when the leader asks for that)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from aiohttp import web

from sentinel.serving import root_url
from sentinel_pool import resume
from sentinel_pool.daemon_routes import BACKEND_HEADER
from sentinel_pool.errors import DaemonConflict, DaemonNotFound, DaemonRefused
from sentinel_pool.node_jobs import Fenced, NotAllowed
from sentinel_pool.peer_http import relay

if TYPE_CHECKING:
    from sentinel_pool.daemon import Daemon

TERM_HEADER = "x-sentinel-term"  # the leader's term, sent with each request it hands a node


async def run(daemon: Daemon, request: web.Request) -> web.Response:
    body = json.loads(await daemon.signed(request))
    # the newest term this daemon has heard of, from any hello: a partitioned old leader's work is refused even
    # by a daemon the new leader has not given work to yet
    daemon.local.term = max(daemon.local.term, daemon.election.highest_term)
    try:
        daemon.local.start(
            body["job"],
            body["kind"],
            int(body["epoch"]),
            int(body["term"]),
            body["payload"],
            bool(body.get("idempotent", True)),
        )
    except Fenced as fenced:
        raise DaemonConflict(str(fenced), code="stale_epoch") from fenced
    except NotAllowed as refused:
        raise DaemonRefused(str(refused), code="not_allowed", status=403) from refused
    return web.json_response({"job": body["job"], "epoch": body["epoch"], "state": "running"}, status=202)


async def poll(daemon: Daemon, request: web.Request) -> web.Response:
    """The leader asks about a job at an epoch; not holding it fences that epoch here (``NodeJobs.ask``)."""
    await daemon.signed(request)
    job, epoch = request.match_info["job"], int(request.match_info["epoch"])
    held = daemon.local.ask(job, epoch)
    if held is None:
        error = f"this daemon holds no job {job} at epoch {epoch}, and now refuses that epoch"
        raise DaemonNotFound(error, extra={"fenced": epoch})
    return web.json_response(held.poll())


async def acknowledged(daemon: Daemon, request: web.Request) -> web.Response:
    body = json.loads(await daemon.signed(request))
    return web.json_response({"forgotten": daemon.local.acknowledged(request.match_info["job"], int(body["epoch"]))})


async def serve(daemon: Daemon, request: web.Request) -> web.StreamResponse:
    """The leader hands this node a client's request: pass it to one of this daemon's own backends."""
    body = await daemon.signed(request)
    backend = request.headers.get(BACKEND_HEADER, "")
    if backend not in {b.url for b in daemon.backends}:
        raise DaemonNotFound(f"{backend!r} is not a backend of {daemon.config.node}")
    term = int(request.headers.get(TERM_HEADER) or 0)
    if term and term < daemon.election.highest_term:  # a leader frozen or cut off, acting on an old term
        error = f"term {term} is older than term {daemon.election.highest_term}: a newer leader exists"
        raise DaemonConflict(error, code="stale_term")
    tail = request.match_info["tail"]
    # Ollama's own API (``/api/pull``...) lives at the server's root, not under the OpenAI base
    target = f"{root_url(backend)}/{tail}" if tail.startswith("api/") else f"{backend}/{tail}"
    rid = request.headers.get(resume.REQUEST_HEADER)
    if rid and resume.kept_request(tail, body):
        return await resume.serve_kept(daemon, request, rid, target, body)
    return await relay(daemon.session, request, target, body, {}, daemon.client_timeout, hop="the model server")
