"""The pool's client face, the same behind either server: OpenAI's and Ollama's inference routes and listings,
mapped onto the one router (``dispatch.Gateway``) as framework-free replies. The API (FastAPI) and the daemon
(aiohttp) each turn a ``Reply`` into their own response in a few lines, so both speak both dialects in full, with
tool-call repair, the constrained first call, idempotency keys and the one error shape. A route raises what the pool
cannot serve (``GatewayError``); each server answers it once, for every route, with ``error_reply``.

Request headers: ``x-sentinel-idempotent: false`` (never sent to a second node once one may have received it),
``x-sentinel-background: true`` (work nobody waits on: no chat a maintenance pass yields to), ``Idempotency-Key``
(a client's retries of one request are attempts of one job, capped together), ``x-sentinel-conversation``.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sentinel import __version__
from sentinel_pool import BACKGROUND_HEADER, ollama_api, ollama_native
from sentinel_pool.admission import CONVERSATION_HEADER
from sentinel_pool.dispatch import Gateway
from sentinel_pool.errors import BadRequest, GatewayError
from sentinel_pool.repair import constrain_call
from sentinel_pool.streaming import Stream

IDEMPOTENT_HEADER = "x-sentinel-idempotent"
IDEMPOTENCY_HEADER = "idempotency-key"
INFERENCE = (
    "/v1/chat/completions",
    "/v1/completions",
    "/v1/embeddings",
    "/api/chat",
    "/api/generate",
    "/api/embed",
    "/api/embeddings",
    "/api/show",
)
LISTINGS = ("/v1/models", "/api/tags", "/api/ps", "/api/version")


@dataclass
class Reply:
    """One answer: a JSON ``body``, or a ``stream`` of bytes with its ``media_type``."""

    body: Any = None
    stream: AsyncIterator[bytes] | AsyncIterator[str] | None = None
    media_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    status: int = 200


def how_of(headers: Mapping[str, str]) -> dict[str, Any]:
    """What the request's headers say of it (see the module's docstring). Inference is idempotent unless the
    caller says otherwise."""
    return {
        "idempotent": headers.get(IDEMPOTENT_HEADER, "true").strip().lower() not in ("false", "0", "no"),
        "background": headers.get(BACKGROUND_HEADER, "").strip().lower() in ("true", "1", "yes"),
        "idempotency_key": headers.get(IDEMPOTENCY_HEADER),
        "conversation": headers.get(CONVERSATION_HEADER),
    }


def json_body(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BadRequest(f"the request body is not JSON: {error}") from error
    if not isinstance(body, dict):
        raise BadRequest(f"the request body must be a JSON object, not {type(body).__name__}")
    return body


def error_reply(error: GatewayError, path: str) -> Reply:
    """The one place a pool error becomes an answer: OpenAI's error shape, or Ollama's on its ``/api/`` routes."""
    body = {"error": str(error)} if path.startswith("/api/") else error.body()
    return Reply(body, status=error.status, headers=error.headers())


def _where(node: str, sticky: bool) -> dict[str, str]:
    return {"x-sentinel-node": node, "x-sentinel-sticky": "true" if sticky else "false"}


async def answer(
    gateway: Gateway,
    path: str,
    raw: bytes,
    headers: Mapping[str, str],
    chat_seen: Callable[[dict[str, Any]], object] | None = None,
) -> Reply:
    """An inference route (``INFERENCE``) with the request's bytes and headers; raises ``GatewayError`` before
    any answer starts (``error_reply``). ``chat_seen`` is shown every OpenAI chat request that is not background
    work, as the client sent it."""
    body = json_body(raw)
    if chat_seen is not None and path == "/v1/chat/completions" and not how_of(headers)["background"]:
        chat_seen(body)
    if path.startswith("/v1/"):
        return await _openai(gateway, path.removeprefix("/v1"), body, headers)
    if path in ("/api/chat", "/api/generate"):
        return await _ollama(gateway, path, body, headers)
    if path in ("/api/embed", "/api/embeddings"):
        return await _ollama_embed(gateway, body, legacy=path == "/api/embeddings")
    return Reply(await _show(gateway, body))


async def listing(gateway: Gateway, path: str) -> Reply:
    """A listing route (``LISTINGS``): the models the pool serves, in either dialect."""
    if path == "/api/version":
        return Reply({"version": __version__})
    pool = await gateway.snapshot()
    if path == "/api/tags":
        return Reply(ollama_api.tags(pool))
    if path == "/api/ps":
        return Reply(ollama_api.loaded(pool))
    served = await gateway.models()
    data = [
        {"id": name, "object": "model", "created": 0, "owned_by": "sentinel-pool", "nodes": nodes}
        for name, nodes in served.items()
    ]
    return Reply({"object": "list", "data": data})


async def _openai(gateway: Gateway, endpoint: str, body: dict[str, Any], headers: Mapping[str, str]) -> Reply:
    """An OpenAI-shaped answer as the client asked for it: streamed as SSE or whole as JSON, naming the node."""
    if endpoint == "/chat/completions":
        body = constrain_call(body, gateway.first_call)
    how = how_of(headers) if endpoint != "/embeddings" else {}
    if body.get("stream") and endpoint != "/embeddings":
        stream = await gateway.stream(body, endpoint=endpoint, **how)
        where = _where(stream.node, stream.sticky) | {"cache-control": "no-cache"}
        return Reply(stream=stream.chunks(), media_type="text/event-stream", headers=where)
    done = await gateway.complete(endpoint, body, **how)
    return Reply(done.answer, headers=_where(done.node, done.sticky))


def _ollama_headers(node: str, native: bool, body: dict[str, Any]) -> dict[str, str]:
    ignored = [] if native else ollama_native.ignored_fields(body)
    return {"x-sentinel-node": node} | ({"x-sentinel-ignored": ",".join(ignored)} if ignored else {})


async def _ollama(gateway: Gateway, endpoint: str, body: dict[str, Any], headers: Mapping[str, str]) -> Reply:
    """``/api/chat`` or ``/api/generate``: as it came to an Ollama node, translated for an OpenAI one."""
    started = time.perf_counter()
    if endpoint == "/api/chat":
        openai_endpoint, (translated, streamed) = "/chat/completions", ollama_api.chat_request(body)
        translated = constrain_call(translated, gateway.first_call)
        stream_out, answer_out = ollama_api.chat_stream, ollama_api.chat_response
    else:
        openai_endpoint, translated, streamed = ollama_api.generate_request(body)
        stream_out, answer_out = ollama_api.generate_stream, ollama_api.generate_response
    model, target, how = str(body.get("model")), ollama_native.native(endpoint, body), how_of(headers)
    if streamed:
        stream = await gateway.stream(translated, endpoint=openai_endpoint, target=target, **how)
        native = isinstance(stream, Stream) and stream.framing is ollama_native.NDJSON
        lines = stream.chunks() if native else stream_out(stream.chunks(), model, started)
        return Reply(
            stream=lines, media_type="application/x-ndjson", headers=_ollama_headers(stream.node, native, body)
        )
    done = await gateway.complete(openai_endpoint, translated, target=target, **how)
    result = done.answer if done.native else answer_out(done.answer, model, started)
    return Reply(result, headers=_ollama_headers(done.node, done.native, body))


async def _ollama_embed(gateway: Gateway, body: dict[str, Any], legacy: bool) -> Reply:
    started = time.perf_counter()
    done = await gateway.complete("/embeddings", ollama_api.embed_request(body))
    result = ollama_api.embed_response(done.answer, str(body.get("model")), started)
    return Reply({"embedding": result["embeddings"][0]} if legacy else result, headers={"x-sentinel-node": done.node})


async def _show(gateway: Gateway, body: dict[str, Any]) -> dict[str, Any]:
    model = body.get("model") or body.get("name")
    if not isinstance(model, str) or not model:
        raise ollama_api.OllamaRequestInvalid("'model' must name one of the pool's models (GET /api/tags)")
    return await gateway.show(model)
