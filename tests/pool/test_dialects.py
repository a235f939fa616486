"""Both dialects in full, through the real API app over real Redis, to real HTTP servers on loopback: an
Ollama-shaped node gets Ollama requests as they came (num_ctx, keep_alive, options, think, format, tools), an
OpenAI-compatible node gets them translated with what it cannot honour named; /api/generate, /api/show and
/v1/completions are served; tool calls pass through unchanged both ways. Which a node gets is decided by the dialects
its kind registered, never by the kind's name: a new kind needs nothing in the pool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from redis import Redis

from sentinel.providers import servers
from sentinel.providers.openai_compat import OpenAIServer
from sentinel.providers.servers import OLLAMA, OPENAI, register_kind
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.servers import serve

CALL = {"function": {"name": "read", "arguments": {"page": "Pool"}}}
TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


@contextmanager
def _ollama_node(received: list[tuple[str, dict[str, Any]]]) -> Iterator[str]:
    """An Ollama-shaped server (its native API) that records what it was sent; yields its root URL."""
    node = FastAPI()

    @node.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @node.get("/api/tags")
    @node.get("/api/ps")
    def listed() -> dict[str, Any]:  # what a daemon's probe reads
        return {"models": [{"name": "qwen3:latest", "model": "qwen3:latest"}]}

    @node.post("/api/chat")
    async def chat(request: Request) -> Any:
        body = await request.json()
        received.append(("/api/chat", body))
        lines = [
            {"model": body["model"], "message": {"role": "assistant", "content": "", "thinking": "hmm"}, "done": False},
            {
                "model": body["model"],
                "message": {"role": "assistant", "content": "", "tool_calls": [CALL]},
                "done": False,
            },
            {"model": body["model"], "message": {"role": "assistant", "content": ""}, "done": True, "eval_count": 2},
        ]
        if body.get("stream") is False:
            return lines[1] | {"done": True}
        return StreamingResponse((json.dumps(line) + "\n" for line in lines), media_type="application/x-ndjson")

    @node.post("/api/generate")
    async def generate(request: Request) -> dict[str, Any]:
        body = await request.json()
        received.append(("/api/generate", body))
        return {"model": body["model"], "response": "generated", "done": True, "context": [1, 2]}

    @node.post("/api/show")
    async def show(request: Request) -> dict[str, Any]:
        received.append(("/api/show", await request.json()))
        return {"modelfile": "FROM qwen", "details": {"family": "qwen2"}, "capabilities": ["completion", "tools"]}

    with serve(node) as url:
        yield url


def _register(redis: Redis, keys: PoolKeys, node: str, url: str, kind: str, model: str) -> None:
    backend = BackendRecord(url=url, kind=kind, models=[model], loaded=[model])  # type: ignore[arg-type]
    publish(redis, keys, NodeRecord(node=node, backends=[backend]), ttl_s=60)


def test_an_ollama_node_gets_ollama_requests_as_they_came(gateway: str, redis_client: Redis, keys: PoolKeys) -> None:
    received: list[tuple[str, dict[str, Any]]] = []
    with _ollama_node(received) as root:
        _register(redis_client, keys, "gpu-1", f"{root}/v1", "ollama", "qwen3:latest")
        body = {
            "model": "qwen3",  # Ollama's own spelling without a tag: the node's name for it is qwen3:latest
            "messages": [{"role": "user", "content": "read Pool"}],
            "options": {"num_ctx": 32768, "temperature": 0.2, "num_gpu": 99},
            "keep_alive": "30m",
            "think": True,
            "format": {"type": "object"},
            "tools": TOOLS,
        }
        streamed = httpx.post(f"{gateway}/api/chat", json=body, timeout=30)
        assert streamed.status_code == 200 and "x-sentinel-ignored" not in streamed.headers
        assert received[-1] == ("/api/chat", body | {"model": "qwen3:latest"})  # every field, untouched
        lines = [json.loads(line) for line in streamed.text.splitlines()]
        assert lines[0]["message"]["thinking"] == "hmm" and lines[1]["message"]["tool_calls"] == [CALL]
        assert lines[-1]["done"] is True and lines[-1]["eval_count"] == 2
        whole = httpx.post(f"{gateway}/api/chat", json=body | {"stream": False}, timeout=30).json()
        assert whole["message"]["tool_calls"] == [CALL]
        generated = httpx.post(
            f"{gateway}/api/generate",
            json={"model": "qwen3", "prompt": "hi", "stream": False, "keep_alive": 0, "options": {"num_ctx": 4096}},
            timeout=30,
        )
        assert generated.json() == {"model": "qwen3:latest", "response": "generated", "done": True, "context": [1, 2]}
        assert received[-1][1]["options"] == {"num_ctx": 4096} and received[-1][1]["keep_alive"] == 0
        shown = httpx.post(f"{gateway}/api/show", json={"model": "qwen3"}, timeout=30).json()
        assert shown["capabilities"] == ["completion", "tools"] and received[-1] == (
            "/api/show",
            {"model": "qwen3:latest"},
        )
        missing = httpx.post(f"{gateway}/api/show", json={"model": "nope"}, timeout=30)
        assert missing.status_code == 404 and "no live node serves model 'nope'" in missing.json()["error"]


def _openai_node(requests: list[RecordedRequest]) -> HttpStub:
    def respond(request: RecordedRequest) -> tuple[int, Any]:
        requests.append(request)
        usage = {"prompt_tokens": 2, "completion_tokens": 1}
        if request.path == "/v1/completions":
            return 200, {
                "object": "text_completion",
                "choices": [{"index": 0, "text": " world", "finish_reason": "stop"}],
                "usage": usage,
            }
        call = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"page": "Pool"}'}}
        message = (
            {"role": "assistant", "content": None, "tool_calls": [call]}
            if request.body.get("tools")
            else {"role": "assistant", "content": "said"}
        )
        reason = "tool_calls" if request.body.get("tools") else "stop"
        return 200, {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": usage,
        }

    return HttpStub(respond)


def test_an_openai_node_gets_translations_and_what_it_cannot_honour_is_named(
    gateway: str, redis_client: Redis, keys: PoolKeys
) -> None:
    requests: list[RecordedRequest] = []
    with _openai_node(requests) as node:
        _register(redis_client, keys, "cpu-1", f"{node.url}/v1", "openai", "tiny")
        body = {
            "model": "tiny",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": False,
            "options": {"num_ctx": 32768, "temperature": 0},
            "keep_alive": "5m",
            "think": False,
        }
        answer = httpx.post(f"{gateway}/api/chat", json=body, timeout=30)
        assert answer.headers["x-sentinel-ignored"] == "keep_alive,options.num_ctx"
        sent = requests[-1].body
        assert sent["chat_template_kwargs"] == {"enable_thinking": False} and sent["temperature"] == 0
        assert answer.json()["message"]["content"] == "said"
        generated = httpx.post(
            f"{gateway}/api/generate",
            json={"model": "tiny", "prompt": "hey", "system": "be brief", "stream": False},
            timeout=30,
        )
        assert requests[-1].path == "/v1/chat/completions"
        assert requests[-1].body["messages"] == [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hey"},
        ]
        assert generated.json()["response"] == "said" and generated.json()["done"] is True
        raw = httpx.post(
            f"{gateway}/api/generate",
            json={"model": "tiny", "prompt": "hello", "raw": True, "stream": False},
            timeout=30,
        )
        assert requests[-1].path == "/v1/completions" and requests[-1].body["prompt"] == "hello"
        assert raw.json()["response"] == " world"
        plain = httpx.post(
            f"{gateway}/v1/completions", json={"model": "tiny", "prompt": "hello", "max_tokens": 3}, timeout=30
        )
        assert plain.status_code == 200 and plain.json()["choices"][0]["text"] == " world"
        assert requests[-1].body == {"model": "tiny", "prompt": "hello", "max_tokens": 3}
        shown = httpx.post(f"{gateway}/api/show", json={"model": "tiny"}, timeout=30).json()
        assert shown["sentinel"]["node"] == "cpu-1"
        # the server's own tool calls come back as it gave them
        tools = {"model": "tiny", "messages": [{"role": "user", "content": "read Pool"}], "tools": TOOLS}
        called = httpx.post(f"{gateway}/v1/chat/completions", json=tools, timeout=30).json()
        assert requests[-1].body["tools"] == TOOLS
        assert called["choices"][0]["message"]["tool_calls"][0]["function"] == {
            "name": "read",
            "arguments": '{"page": "Pool"}',
        }


def test_plain_completions_stream_as_sse(gateway: str, redis_client: Redis, keys: PoolKeys) -> None:
    node = FastAPI()

    @node.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @node.post("/v1/completions")
    async def complete(request: Request) -> Any:
        pieces = [{"choices": [{"index": 0, "text": t, "finish_reason": None}]} for t in ("a", "b")]
        events = [f"data: {json.dumps(p)}\n\n" for p in pieces] + ["data: [DONE]\n\n"]
        return StreamingResponse(iter(events), media_type="text/event-stream")

    with serve(node) as url:
        _register(redis_client, keys, "cpu-1", f"{url}/v1", "openai", "tiny")
        with httpx.stream(
            "POST", f"{gateway}/v1/completions", json={"model": "tiny", "prompt": "x", "stream": True}
        ) as r:
            text = "".join(r.iter_text())
        assert (
            r.status_code == 200
            and '"text": "a"' in text
            and '"text": "b"' in text
            and text.rstrip().endswith("[DONE]")
        )


@pytest.fixture
def new_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two kinds registered the one way a provider module registers one, known only during the test: a server
    that speaks Ollama's API beside OpenAI's (as a proxy in front of Ollama does), and an OpenAI-compatible one.
    Neither is named anywhere in the pool; both take everything but their name and dialects from the OpenAI kind,
    so only the dialects can tell the pool how to route them."""
    monkeypatch.setattr(servers, "_KINDS", dict(servers._kinds()))

    @register_kind
    class OllamaMirror(OpenAIServer):
        name = "ollama-mirror"
        dialects = (OLLAMA, OPENAI)

    @register_kind
    class Vllm(OpenAIServer):
        name = "vllm"


def test_a_new_kind_is_routed_by_the_dialects_it_registered(
    gateway: str, redis_client: Redis, keys: PoolKeys, new_kinds: None
) -> None:
    received: list[tuple[str, dict[str, Any]]] = []
    requests: list[RecordedRequest] = []
    with _ollama_node(received) as root, _openai_node(requests) as node:
        _register(redis_client, keys, "mirror-1", f"{root}/v1", "ollama-mirror", "qwen3:latest")
        _register(redis_client, keys, "vllm-1", f"{node.url}/v1", "vllm", "tiny")
        body = {
            "model": "qwen3",  # untagged: on a server of Ollama's dialect that is qwen3:latest
            "messages": [{"role": "user", "content": "hi"}],
            "options": {"num_ctx": 4096},
            "keep_alive": "5m",
            "stream": False,
        }
        native = httpx.post(f"{gateway}/api/chat", json=body, timeout=30)
        assert native.status_code == 200 and "x-sentinel-ignored" not in native.headers
        assert received == [("/api/chat", body | {"model": "qwen3:latest"})]  # as it came, to its own API
        translated = httpx.post(f"{gateway}/api/chat", json=body | {"model": "tiny"}, timeout=30)
        assert translated.status_code == 200 and translated.json()["message"]["content"] == "said"
        assert translated.headers["x-sentinel-ignored"] == "keep_alive,options.num_ctx"
        assert [r.path for r in requests] == ["/v1/chat/completions"] and len(received) == 1
        shown = httpx.post(f"{gateway}/api/show", json={"model": "qwen3"}, timeout=30).json()
        assert shown["modelfile"] == "FROM qwen" and received[-1] == ("/api/show", {"model": "qwen3:latest"})
        known = httpx.post(f"{gateway}/api/show", json={"model": "tiny"}, timeout=30).json()
        assert known["sentinel"] == {"node": "vllm-1", "backend": f"{node.url}/v1", "kind": "vllm"}
