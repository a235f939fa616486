"""The model pool's HTTP face, included by ``create_app``: OpenAI- and Ollama-compatible inference over the
pool, the cluster view, the maintenance lock's holder, wake-on-LAN, the analysis fan-out, Prometheus metrics.
Thin: routing, failover and epochs are decided in ``sentinel.pool``; this maps them to HTTP. Every route takes
the API's keys like the tool routes do.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import ExitStack, asynccontextmanager
from typing import Any

import aiohttp
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from redis import Redis
from redis.asyncio import BlockingConnectionPool
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import RedisError

from sentinel import __version__
from sentinel.chat_prefix import PrefixRecorder
from sentinel.keys import Scope
from sentinel.maintain.cluster_lock import lock_holder, lock_key
from sentinel.pool import BACKGROUND_HEADER, ollama_api, ollama_native
from sentinel.pool.admission import CONVERSATION_HEADER
from sentinel.pool.agent import Agent, agent_thread
from sentinel.pool.cluster import WakeRefused, cluster_view, wake
from sentinel.pool.dispatch import Gateway
from sentinel.pool.errors import GatewayError, RegistryUnavailable
from sentinel.pool.registry import known_nodes
from sentinel.pool.repair import constrain_call
from sentinel.pool.streaming import Stream
from sentinel.pool.wake import EVERY_NETWORK
from sentinel.settings import Settings
from services.api.auth import require_write, scope_of
from services.api.pool_metrics import PoolMetrics
from services.worker.fanout_client import NoExtractionModel, queue_analyses

IDEMPOTENT_HEADER = "x-sentinel-idempotent"
# The client's own retries of one request carry the same key: they are attempts of one job, capped together.
IDEMPOTENCY_HEADER = "idempotency-key"
REDIS_CONNECTIONS = 16


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise HTTPException(400, f"the request body is not JSON: {error}") from error
    if not isinstance(body, dict):
        raise HTTPException(400, f"the request body must be a JSON object, not {type(body).__name__}")
    return body


def _idempotent(request: Request) -> bool:
    """Inference is idempotent unless the caller says otherwise (then it is never sent to a second node)."""
    return request.headers.get(IDEMPOTENT_HEADER, "true").strip().lower() not in ("false", "0", "no")


def _background(request: Request) -> bool:
    """Work nobody waits on (a pass's own calls): it does not count as a chat a maintenance pass yields to."""
    return request.headers.get(BACKGROUND_HEADER, "").strip().lower() in ("true", "1", "yes")


def _how(request: Request) -> dict[str, Any]:
    return {
        "idempotent": _idempotent(request),
        "background": _background(request),
        "idempotency_key": request.headers.get(IDEMPOTENCY_HEADER),
        "conversation": request.headers.get(CONVERSATION_HEADER),
    }


async def caller_scope(request: Request) -> Scope:
    """``scope_of`` as an async dependency: FastAPI runs a sync one in its thread pool, a thread hop per request
    that costs more than the key check itself on the inference path."""
    return scope_of(request)


def _ollama_error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _error_answer(ollama: bool, error: GatewayError) -> Response:
    answer = _ollama_error(error.status, str(error)) if ollama else JSONResponse(error.body(), error.status)
    answer.headers.update(error.headers())
    return answer


class _PoolRoute(APIRoute):
    """The one place a pool error becomes an HTTP answer: OpenAI's error shape, or Ollama's on its ``/api/`` routes."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler, ollama = super().get_route_handler(), self.path.startswith("/api/")

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except ollama_api.OllamaRequestInvalid as error:
                return _ollama_error(400, str(error))
            except RedisError as error:
                return _error_answer(
                    ollama,
                    RegistryUnavailable(
                        f"the pool's registry (Redis) could not be read: {error}; retry in a moment, and check that "
                        "Redis is up (SENTINEL_REDIS_URL)"
                    ),
                )
            except GatewayError as error:
                return _error_answer(ollama, error)

        return answer


class _Running:
    """What exists only while the app runs: aiohttp makes its session inside the running event loop."""

    gateway: Gateway


def pool_router(settings: Settings) -> APIRouter:
    # Bounded: a burst waits for one of a few connections instead of opening one per request (25 at once, each
    # a descriptor and an ephemeral port; with descriptors short, that was a plain 500 in the middle of a burst).
    connections: BlockingConnectionPool = BlockingConnectionPool.from_url(
        settings.redis_url, decode_responses=True, max_connections=REDIS_CONNECTIONS, timeout=5
    )
    redis = AsyncRedis(connection_pool=connections)
    metrics = PoolMetrics()
    running = _Running()
    # What Open WebUI really sends before a Sentinel chat's question, kept for the warm-up of the next start.
    prefixes = PrefixRecorder(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=256))
        running.gateway = Gateway(settings, redis, session, observer=metrics)
        with ExitStack() as agent:
            if settings.pool.backends:  # a one-machine stack: this process registers its model servers itself
                registering = Agent(settings, Redis.from_url(settings.redis_url, decode_responses=True))
                await asyncio.to_thread(agent.enter_context, agent_thread(registering))
            yield
            await asyncio.to_thread(agent.close)
        await session.close()
        await redis.aclose()  # type: ignore[attr-defined]  # types-redis predates aclose

    router = APIRouter(
        lifespan=lifespan, dependencies=[Depends(caller_scope)], tags=["model pool"], route_class=_PoolRoute
    )

    async def answered(endpoint: str, body: dict[str, Any], request: Request) -> Response:
        """An OpenAI-shaped answer as the client asked for it: streamed as SSE or whole as JSON, naming the node."""
        if body.get("stream"):
            stream = await running.gateway.stream(body, endpoint=endpoint, **_how(request))
            return StreamingResponse(
                stream.chunks(),
                media_type="text/event-stream",
                headers={"x-sentinel-node": stream.node, "cache-control": "no-cache"},
            )
        done = await running.gateway.complete(endpoint, body, **_how(request))
        return JSONResponse(done.answer, headers={"x-sentinel-node": done.node})

    @router.post("/v1/chat/completions", summary="Chat completion on the pool (streamed as SSE or not)")
    async def chat_completions(request: Request) -> Response:
        sent = await _json_body(request)
        if not _background(request):
            prefixes.remember(sent)
        body = constrain_call(sent, settings.pool.constrain_first_call)
        return await answered("/chat/completions", body, request)

    @router.post("/v1/embeddings", summary="Embeddings on the pool")
    async def embeddings(request: Request) -> Response:
        done = await running.gateway.complete("/embeddings", await _json_body(request))
        return JSONResponse(done.answer, headers={"x-sentinel-node": done.node})

    @router.get("/v1/models", summary="Every model some live node serves")
    async def models() -> dict[str, Any]:
        served = await running.gateway.models()
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": 0, "owned_by": "sentinel-pool", "nodes": nodes}
                for name, nodes in served.items()
            ],
        }

    @router.post("/v1/completions", summary="Plain (prompt) completion on the pool, streamed as SSE or not")
    async def completions(request: Request) -> Response:
        return await answered("/completions", await _json_body(request), request)

    def _ollama_headers(node: str, native: bool, body: dict[str, Any]) -> dict[str, str]:
        ignored = [] if native else ollama_native.ignored_fields(body)
        return {"x-sentinel-node": node} | ({"x-sentinel-ignored": ",".join(ignored)} if ignored else {})

    async def _ollama_inference(request: Request, endpoint: str) -> Response:
        """``/api/chat`` or ``/api/generate``: as it came to an Ollama node, translated for an OpenAI one."""
        body, started = await _json_body(request), time.perf_counter()
        if endpoint == "/api/chat":
            openai_endpoint, (translated, streamed) = "/chat/completions", ollama_api.chat_request(body)
            translated = constrain_call(translated, settings.pool.constrain_first_call)
            stream_out, answer_out = ollama_api.chat_stream, ollama_api.chat_response
        else:
            openai_endpoint, translated, streamed = ollama_api.generate_request(body)
            stream_out, answer_out = ollama_api.generate_stream, ollama_api.generate_response
        model, target = str(body.get("model")), ollama_native.native(endpoint, body)
        if streamed:
            stream = await running.gateway.stream(translated, endpoint=openai_endpoint, target=target, **_how(request))
            native = isinstance(stream, Stream) and stream.framing is ollama_native.NDJSON
            lines = stream.chunks() if native else stream_out(stream.chunks(), model, started)
            headers = _ollama_headers(stream.node, native, body)
            return StreamingResponse(lines, media_type="application/x-ndjson", headers=headers)
        done = await running.gateway.complete(openai_endpoint, translated, target=target, **_how(request))
        answer = done.answer if done.native else answer_out(done.answer, model, started)
        return JSONResponse(answer, headers=_ollama_headers(done.node, done.native, body))

    @router.post("/api/chat", summary="Ollama's chat API over the pool")
    async def ollama_chat(request: Request) -> Response:
        return await _ollama_inference(request, "/api/chat")

    @router.post("/api/generate", summary="Ollama's generate API over the pool")
    async def ollama_generate(request: Request) -> Response:
        return await _ollama_inference(request, "/api/generate")

    @router.post("/api/show", summary="Ollama's model details, from a node that serves the model")
    async def ollama_show(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        model = body.get("model") or body.get("name")
        if not isinstance(model, str) or not model:
            raise ollama_api.OllamaRequestInvalid("'model' must name one of the pool's models (GET /api/tags)")
        return await running.gateway.show(model)

    async def _ollama_embed(request: Request, legacy: bool) -> Response:
        body, started = await _json_body(request), time.perf_counter()
        done = await running.gateway.complete("/embeddings", ollama_api.embed_request(body))
        result = ollama_api.embed_response(done.answer, str(body.get("model")), started)
        headers = {"x-sentinel-node": done.node}
        return JSONResponse({"embedding": result["embeddings"][0]} if legacy else result, headers=headers)

    @router.post("/api/embed", summary="Ollama's embed API over the pool")
    async def ollama_embed(request: Request) -> Response:
        return await _ollama_embed(request, legacy=False)

    @router.post("/api/embeddings", summary="Ollama's older embeddings API over the pool")
    async def ollama_embeddings(request: Request) -> Response:
        return await _ollama_embed(request, legacy=True)

    @router.get("/api/tags", summary="Ollama's model list: every model the pool serves")
    async def ollama_tags() -> dict[str, Any]:
        return ollama_api.tags(await running.gateway.snapshot())

    @router.get("/api/ps", summary="Ollama's loaded models: every model loaded somewhere in the pool")
    async def ollama_ps() -> dict[str, Any]:
        return ollama_api.loaded(await running.gateway.snapshot())

    @router.get("/api/version", summary="Version (Ollama clients ask)")
    async def version() -> dict[str, str]:
        return {"version": __version__}

    @router.get("/api/cluster", summary="Nodes, backends, models, free VRAM and jobs in flight")
    async def cluster() -> dict[str, Any]:
        return cluster_view(await running.gateway.snapshot(), await known_nodes(redis, running.gateway.keys))

    @router.post("/api/nodes/wake/{node}", summary="Send a wake-on-LAN magic packet to a node's stored MAC")
    async def wake_node(node: str, scope: Scope = Depends(caller_scope)) -> dict[str, Any]:
        require_write(scope, "wake")
        pool = settings.pool
        try:
            mac = wake(
                await known_nodes(redis, running.gateway.keys), node, pool.wake_address or EVERY_NETWORK, pool.wake_port
            )
        except WakeRefused as refused:
            raise HTTPException(404, str(refused)) from refused
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
        try:
            return queue_analyses(settings)
        except NoExtractionModel as missing:
            raise HTTPException(409, str(missing)) from missing

    @router.get("/metrics", summary="Prometheus metrics of the pool", include_in_schema=False)
    async def prometheus() -> Response:
        return Response(metrics.render(await running.gateway.snapshot()), media_type="text/plain; version=0.0.4")

    return router
