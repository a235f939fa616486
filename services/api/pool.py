"""The model pool's HTTP face, included by ``create_app``: OpenAI- and Ollama-compatible inference over the
pool, the cluster view, the maintenance lock's holder, wake-on-LAN, the analysis fan-out, Prometheus metrics.
Thin: routing, failover and epochs are decided in ``sentinel_pool``; this maps them to HTTP. Every route takes
the API's keys like the tool routes do.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import ExitStack, asynccontextmanager
from typing import Any

import aiohttp
from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from redis.exceptions import RedisError

from sentinel.chat_prefix import PrefixRecorder
from sentinel.keys import Scope
from sentinel.maintain.cluster_lock import lock_holder, lock_key
from sentinel.redis_client import async_redis_client, redis_client
from sentinel.settings import Settings
from sentinel.tools.first_call import opening
from sentinel_pool import api_gateway, face
from sentinel_pool.agent import Agent, agent_thread
from sentinel_pool.chat_first import ChatActivity
from sentinel_pool.cluster import cluster_view, wake
from sentinel_pool.dispatch import Gateway
from sentinel_pool.errors import GatewayError, RegistryUnavailable
from sentinel_pool.registry import KnownNode, NodeRecord, PoolKeys, known_nodes, routes_in_memory
from sentinel_pool.wake import EVERY_NETWORK
from services.api.pool_metrics import PoolMetrics
from services.common.auth import require_write, scope_of
from services.common.tasks import queue_analyses

REDIS_CONNECTIONS = 16


async def caller_scope(request: Request) -> Scope:
    """``scope_of`` as an async dependency: FastAPI runs a sync one in its thread pool, a thread hop per request
    that costs more than the key check itself on the inference path."""
    return scope_of(request)


def _response(reply: face.Reply) -> Response:
    if reply.stream is not None:
        return StreamingResponse(reply.stream, media_type=reply.media_type, headers=reply.headers)
    return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)


async def pool_error(request: Request, error: Exception) -> Response:
    """The API's one answer to what the pool cannot serve, on every route: OpenAI's or Ollama's error shape, with
    its status and headers (``face.error_reply``). A route raises it before its answer starts (a stream's later
    failure is the stream's own last event), so no path answers it as a bare 500."""
    assert isinstance(error, GatewayError)  # registered for GatewayError only
    return _response(face.error_reply(error, request.url.path))


def install_pool_errors(app: FastAPI) -> None:
    app.add_exception_handler(GatewayError, pool_error)


class _PoolRoute(APIRoute):
    """On a pool route, Redis failing is the pool's registry being down: said as such (``pool_error``)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except RedisError as error:
                raise RegistryUnavailable(
                    f"the pool's registry (Redis) could not be read: {error}; retry in a moment, and check that "
                    "Redis is up (SENTINEL_REDIS_URL)"
                ) from error

        return answer


class _Running:
    """What exists only while the app runs: aiohttp makes its session inside the running event loop."""

    gateway: Gateway
    agent: Agent | None = None  # this process's own model servers, probed in a thread


def pool_router(settings: Settings) -> APIRouter:
    # Bounded: a burst of requests shares a few connections (25 at once each opening its own ran out of them).
    redis = async_redis_client(settings.redis_url, max_connections=REDIS_CONNECTIONS)
    keys = PoolKeys.from_settings(settings)
    metrics = PoolMetrics()
    running = _Running()
    # What Open WebUI really sends before a Sentinel chat's question, kept for the warm-up of the next start.
    prefixes = PrefixRecorder(settings)

    in_memory = routes_in_memory(settings.pool)
    if in_memory and not settings.pool.backends:
        raise ValueError(
            "SENTINEL_POOL__REGISTRY=memory routes over this process's own model servers, and it has none: set "
            "SENTINEL_POOL__BACKENDS (e.g. '[\"openai=http://llm:8080/v1\"]'), or use registry 'redis' or 'auto'"
        )

    def own_nodes() -> list[NodeRecord]:
        latest = running.agent.latest if running.agent is not None else None
        return [latest] if latest is not None else []

    async def known() -> dict[str, KnownNode]:
        if in_memory:
            return {r.node: KnownNode(node=r.node, mac=r.mac, last_seen=time.time()) for r in own_nodes()}
        return await known_nodes(redis, keys)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=256))
        if in_memory:  # a one-machine stack: its own model servers, routed without Redis
            chats = ChatActivity(redis, keys, settings.pool.first_token_timeout_s + settings.pool.read_timeout_s)
            running.gateway = api_gateway.in_memory(
                settings, session, own_nodes, chats=chats, observer=metrics, first_call=opening
            )
        else:
            running.gateway = api_gateway.on_redis(
                settings, redis, session, keys=keys, observer=metrics, first_call=opening
            )
        with ExitStack() as agent:
            if settings.pool.backends:  # this process probes (and, on Redis, registers) its model servers itself
                registry = (
                    None if in_memory else redis_client(settings.redis_url, timeout_s=None, connect_timeout_s=None)
                )
                running.agent = Agent(settings, registry)
                await asyncio.to_thread(agent.enter_context, agent_thread(running.agent))
            yield
            await asyncio.to_thread(agent.close)
        await session.close()
        await redis.aclose()  # type: ignore[attr-defined]  # types-redis predates aclose

    router = APIRouter(
        lifespan=lifespan, dependencies=[Depends(caller_scope)], tags=["model pool"], route_class=_PoolRoute
    )

    async def inference(request: Request) -> Response:
        path, raw = request.url.path, await request.body()
        return _response(await face.answer(running.gateway, path, raw, request.headers, prefixes.remember))

    async def listed(request: Request) -> Response:
        return _response(await face.listing(running.gateway, request.url.path))

    summaries = {
        "/v1/chat/completions": "Chat completion on the pool (streamed as SSE or not)",
        "/v1/completions": "Plain (prompt) completion on the pool, streamed as SSE or not",
        "/v1/embeddings": "Embeddings on the pool",
        "/api/chat": "Ollama's chat API over the pool",
        "/api/generate": "Ollama's generate API over the pool",
        "/api/embed": "Ollama's embed API over the pool",
        "/api/embeddings": "Ollama's older embeddings API over the pool",
        "/api/show": "Ollama's model details, from a node that serves the model",
        "/v1/models": "Every model some live node serves",
        "/api/tags": "Ollama's model list: every model the pool serves",
        "/api/ps": "Ollama's loaded models: every model loaded somewhere in the pool",
        "/api/version": "Version (Ollama clients ask)",
    }
    for path in face.INFERENCE:
        router.add_api_route(path, inference, methods=["POST"], summary=summaries[path])
    for path in face.LISTINGS:
        router.add_api_route(path, listed, methods=["GET"], summary=summaries[path])

    @router.get("/api/cluster", summary="Nodes, backends, models, free VRAM and jobs in flight")
    async def cluster() -> dict[str, Any]:
        return cluster_view(await running.gateway.snapshot(), await known())

    @router.post("/api/nodes/wake/{node}", summary="Send a wake-on-LAN magic packet to a node's stored MAC")
    async def wake_node(node: str, scope: Scope = Depends(caller_scope)) -> dict[str, Any]:
        require_write(scope, "wake")
        pool = settings.pool
        mac = wake(await known(), node, pool.wake_address or EVERY_NETWORK, pool.wake_port)  # unknown: 404
        return {
            "node": node,
            "mac": mac,
            "sent_to": f"{pool.wake_address or EVERY_NETWORK}:{pool.wake_port}",
            "note": "packet sent; the node is back once it heartbeats (GET /api/cluster)",
        }

    @router.get("/api/leader", summary="Which process holds the maintenance lock, and since when")
    def leader() -> dict[str, Any]:
        holder = lock_holder(settings)
        return {
            "lock": lock_key(settings),
            "held": holder is not None,
            "holder": holder.as_dict() if holder else None,
            "note": "the lock lets one maintenance pass run at a time across every worker; routing needs no leader",
        }

    @router.post("/api/pool/analyses", status_code=202, summary="Fan the due page analyses out to the workers")
    def fan_out(scope: Scope = Depends(caller_scope)) -> dict[str, Any]:
        require_write(scope, "fan-out")
        return queue_analyses(settings)  # no extraction model: 409 (services.common.errors)

    @router.get("/metrics", summary="Prometheus metrics of the pool", include_in_schema=False)
    async def prometheus() -> Response:
        return Response(metrics.render(await running.gateway.snapshot()), media_type="text/plain; version=0.0.4")

    return router
