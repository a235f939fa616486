"""Ollama's API passed through to an Ollama backend as it came: every field reaches the server that reads it.

When the node chosen for an Ollama-dialect request (``/api/chat``, ``/api/generate``, ``/api/show``) is an Ollama
server, the request goes to that server's own endpoint with only ``model`` renamed to the node's name for it,
so ``num_ctx``, ``keep_alive``, ``options``, ``think``, ``format``, ``tools`` and tool calls pass through
unchanged both ways (Ollama parses tool calls itself). The answer comes back as Ollama wrote it: JSON lines,
cut here into whole lines, held back until the first one that carries output (``NDJSON``), like SSE streams.
An OpenAI-compatible node gets the translation of ``ollama_api`` instead; fields it has no equivalent for are
named in the answer's ``x-sentinel-ignored`` header (``ignored_fields``), never dropped silently.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from sentinel.providers.servers import OLLAMA, speaks
from sentinel.serving import root_url
from sentinel_pool.routing import Candidate
from sentinel_pool.streaming import Framing

# Fields an OpenAI-compatible server has no equivalent for (its context size is fixed when it starts).
_NO_OPENAI_EQUIVALENT = ("keep_alive",)
_OPTIONS_WITHOUT_EQUIVALENT = ("num_ctx", "num_gpu", "num_thread", "num_batch", "mirostat", "repeat_last_n")


async def line_blocks(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """The response's bytes as they arrive, cut after the last complete line (whole JSON objects only)."""
    pending = b""
    async for chunk in response.content.iter_any():
        pending += chunk
        cut = pending.rfind(b"\n") + 1
        if cut > 0:
            yield pending[:cut]
            pending = pending[cut:]
    if pending.strip():
        yield pending + b"\n"


def _lines(block: bytes) -> list[dict[str, Any]]:
    out = []
    for line in block.splitlines():
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict):
            out.append(parsed)
    return out


def _has_output(block: bytes) -> bool:
    for line in _lines(block):
        message = line.get("message") or {}
        if line.get("done") or "error" in line or line.get("response") or line.get("thinking"):
            return True
        if message.get("content") or message.get("tool_calls") or message.get("thinking"):
            return True
    return False


def _ends(block: bytes) -> bool:
    return any(line.get("done") or "error" in line for line in _lines(block))


def _error(message: str, code: str) -> bytes:
    return json.dumps({"error": message, "code": code}).encode() + b"\n"


NDJSON = Framing(line_blocks, _has_output, _ends, _error, "application/x-ndjson")


@dataclass(frozen=True)
class Outgoing:
    """Where one attempt goes and what it carries, when it is not the OpenAI request built by default."""

    url: str
    body: dict[str, Any]
    framing: Framing = NDJSON


Target = Callable[[Candidate], Outgoing | None]


def native(endpoint: str, body: dict[str, Any]) -> Target:
    """Send ``body`` to ``endpoint`` (``/api/chat``...) of an Ollama node as it is; other nodes: None (translate)."""

    def target(candidate: Candidate) -> Outgoing | None:
        if not speaks(candidate.kind, OLLAMA):
            return None
        return Outgoing(root_url(candidate.url) + endpoint, body | {"model": candidate.model})

    return target


def ignored_fields(body: dict[str, Any]) -> list[str]:
    """What an OpenAI-compatible node cannot honour of an Ollama request, by name."""
    options = body.get("options") or {}
    named = [key for key in _NO_OPENAI_EQUIVALENT if key in body]
    return named + [f"options.{key}" for key in _OPTIONS_WITHOUT_EQUIVALENT if key in options]


def show(candidate: Candidate) -> dict[str, Any]:
    """``/api/show`` for a model on an OpenAI-compatible node: what the pool knows of it (no modelfile there)."""
    return {
        "modelfile": "",
        "parameters": "",
        "template": "",
        "details": {"format": "gguf", "family": "", "parameter_size": "", "quantization_level": ""},
        "model_info": {},
        "capabilities": ["completion"],
        "sentinel": {"node": candidate.node, "backend": candidate.url, "kind": candidate.kind},
    }
