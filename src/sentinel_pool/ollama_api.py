"""Ollama's API over an OpenAI-compatible node: its requests become OpenAI-shaped ones, the answers go back in
its shape.

An Ollama node gets Ollama's requests as they came (``ollama_native``); this module translates for the others,
following Ollama's documented API: ``/api/chat`` (streamed as one JSON object per line, with ``done: true`` and
the token counts last), ``/api/generate`` (as a chat of one user turn, or ``/v1/completions`` when ``raw``),
``/api/embed``, ``/api/embeddings``, ``/api/tags``, ``/api/ps``. ``think`` becomes the chat template's
``enable_thinking`` (llama.cpp, vLLM). Options with no OpenAI equivalent (``num_ctx``, ``keep_alive``) cannot
be honoured by such a node: ``ollama_native.ignored_fields`` names them in the answer's headers.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from sentinel_pool.errors import BadRequest
from sentinel_pool.registry import Snapshot
from sentinel_pool.routing import pool_models
from sentinel_pool.streaming import DONE, sse_data

# Ollama option -> OpenAI field (same meaning and unit).
_OPTIONS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "seed": "seed",
    "stop": "stop",
    "num_predict": "max_tokens",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}


class OllamaRequestInvalid(BadRequest, ValueError):
    """An Ollama-shaped request that cannot be translated; the message names the field."""


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _message_in(message: dict[str, Any], index: int) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.get("role", "user"), "content": message.get("content") or ""}
    if message.get("images"):
        out["content"] = [{"type": "text", "text": out["content"]}] + [
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}} for image in message["images"]
        ]
    if message.get("tool_calls"):
        out["tool_calls"] = [
            {
                "id": f"call_{index}_{number}",
                "type": "function",
                "function": {
                    "name": call["function"]["name"],
                    "arguments": json.dumps(call["function"].get("arguments") or {}, ensure_ascii=False),
                },
            }
            for number, call in enumerate(message["tool_calls"])
        ]
    if message.get("role") == "tool" and message.get("tool_name"):
        out["name"] = message["tool_name"]
    return out


def chat_request(body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(the OpenAI-shaped request, whether to stream) for an Ollama ``/api/chat`` body (which streams by default)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise OllamaRequestInvalid("'messages' must be a list of {role, content} objects")
    stream = body.get("stream", True) is not False
    out: dict[str, Any] = {
        "model": body.get("model"),
        "messages": [_message_in(message, index) for index, message in enumerate(messages)],
        "stream": stream,
    }
    if stream:
        out["stream_options"] = {"include_usage": True}
    options = body.get("options") or {}
    out.update({_OPTIONS[key]: value for key, value in options.items() if key in _OPTIONS})
    if body.get("tools"):
        out["tools"] = body["tools"]
    if isinstance(body.get("think"), bool):
        out["chat_template_kwargs"] = {"enable_thinking": body["think"]}
    shape = body.get("format")
    if shape == "json":
        out["response_format"] = {"type": "json_object"}
    elif isinstance(shape, dict):
        out["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": shape}}
    elif shape not in (None, ""):
        raise OllamaRequestInvalid(f"'format' must be \"json\" or a JSON schema object, got {shape!r}")
    return out, stream


def _tool_calls_out(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for call in calls:
        function = call.get("function") or {}
        arguments = function.get("arguments") or "{}"
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
        except json.JSONDecodeError:
            parsed = {"_unparsed": arguments}  # Ollama's shape needs an object; keep the text, never drop it
        out.append({"function": {"name": function.get("name", ""), "arguments": parsed}})
    return out


def _final(model: str, started: float, reason: str | None, usage: dict[str, Any] | None) -> dict[str, Any]:
    usage = usage or {}
    return {
        "model": model,
        "created_at": _now(),
        "done": True,
        "done_reason": reason or "stop",
        "total_duration": int((time.perf_counter() - started) * 1e9),
        "prompt_eval_count": usage.get("prompt_tokens"),
        "eval_count": usage.get("completion_tokens"),
    }


def chat_response(answer: dict[str, Any], model: str, started: float) -> dict[str, Any]:
    """Ollama's non-streamed ``/api/chat`` answer from an OpenAI chat completion."""
    choice = (answer.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    out_message: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    if message.get("tool_calls"):
        out_message["tool_calls"] = _tool_calls_out(message["tool_calls"])
    return _final(model, started, choice.get("finish_reason"), answer.get("usage")) | {"message": out_message}


async def chat_stream(blocks: AsyncIterator[bytes], model: str, started: float) -> AsyncIterator[str]:
    """Ollama's streamed ``/api/chat`` lines from the pool's OpenAI events. Tool calls arrive in pieces and
    are sent whole, in the last message; an error event becomes Ollama's ``{"error": ...}`` line."""
    calls: dict[int, dict[str, Any]] = {}
    reason: str | None = None
    usage: dict[str, Any] | None = None
    async for data in (data async for block in blocks for data in sse_data(block)):
        if not data or data == DONE:
            continue
        try:
            payload = json.loads(data)
        except json.JSONDecodeError:
            continue  # not an OpenAI event (a server's own comment line): nothing to translate
        if not isinstance(payload, dict):
            continue
        if "error" in payload:
            error = payload["error"]
            yield json.dumps({"error": error.get("message", str(error)) if isinstance(error, dict) else error}) + "\n"
            return
        usage = payload.get("usage") or usage
        for choice in payload.get("choices") or []:
            delta = choice.get("delta") or {}
            reason = choice.get("finish_reason") or reason
            for piece in delta.get("tool_calls") or []:
                call = calls.setdefault(piece.get("index", 0), {"function": {"name": "", "arguments": ""}})
                function = piece.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
            content, thinking = delta.get("content") or choice.get("text"), delta.get("reasoning_content")
            if content or thinking:
                said = {"role": "assistant", "content": content or ""} | ({"thinking": thinking} if thinking else {})
                line = {"model": model, "created_at": _now(), "message": said}
                yield json.dumps(line | {"done": False}, ensure_ascii=False) + "\n"
    last: dict[str, Any] = {"role": "assistant", "content": ""}
    if calls:
        last["tool_calls"] = _tool_calls_out([calls[index] for index in sorted(calls)])
    yield json.dumps(_final(model, started, reason, usage) | {"message": last}, ensure_ascii=False) + "\n"


def generate_request(body: dict[str, Any]) -> tuple[str, dict[str, Any], bool]:
    """(OpenAI endpoint, request, whether to stream) for an Ollama ``/api/generate`` body: a chat of one user turn
    (the server applies the model's template, as Ollama does), or a plain completion when ``raw`` is set."""
    prompt = body.get("prompt")
    if not isinstance(prompt, str):
        raise OllamaRequestInvalid("'prompt' must be a string")
    messages = ([{"role": "system", "content": body["system"]}] if body.get("system") else []) + [
        {"role": "user", "content": prompt, **({"images": body["images"]} if body.get("images") else {})}
    ]
    chat, stream = chat_request({key: value for key, value in body.items() if key != "prompt"} | {"messages": messages})
    if not body.get("raw"):
        return "/chat/completions", chat, stream
    plain = {key: value for key, value in chat.items() if key not in ("messages", "chat_template_kwargs")}
    return "/completions", plain | {"prompt": prompt}, stream


def generate_response(answer: dict[str, Any], model: str, started: float) -> dict[str, Any]:
    """Ollama's non-streamed ``/api/generate`` answer from a chat or plain completion."""
    choice = (answer.get("choices") or [{}])[0]
    text = (choice.get("message") or {}).get("content") or choice.get("text") or ""
    return _final(model, started, choice.get("finish_reason"), answer.get("usage")) | {"response": text}


async def generate_stream(blocks: AsyncIterator[bytes], model: str, started: float) -> AsyncIterator[str]:
    """Ollama's streamed ``/api/generate`` lines: ``chat_stream``'s, with ``response`` for ``message``."""
    async for line in chat_stream(blocks, model, started):
        parsed = json.loads(line)
        message = parsed.pop("message", None) or {}
        if "error" not in parsed:
            parsed["response"] = message.get("content") or ""
            if message.get("thinking"):
                parsed["thinking"] = message["thinking"]
        yield json.dumps(parsed, ensure_ascii=False) + "\n"


def embed_request(body: dict[str, Any]) -> dict[str, Any]:
    """OpenAI ``/embeddings`` request for Ollama's ``/api/embed`` (``input``) or ``/api/embeddings`` (``prompt``)."""
    text = body.get("input", body.get("prompt"))
    if not (isinstance(text, str) or (isinstance(text, list) and all(isinstance(item, str) for item in text))):
        raise OllamaRequestInvalid("'input' must be a string or a list of strings ('prompt' for /api/embeddings)")
    out: dict[str, Any] = {"model": body.get("model"), "input": text}
    if body.get("dimensions"):
        out["dimensions"] = body["dimensions"]
    return out


def embed_response(answer: dict[str, Any], model: str, started: float) -> dict[str, Any]:
    rows = sorted(answer.get("data") or [], key=lambda row: row.get("index", 0))
    return {
        "model": model,
        "embeddings": [row["embedding"] for row in rows],
        "total_duration": int((time.perf_counter() - started) * 1e9),
        "prompt_eval_count": (answer.get("usage") or {}).get("prompt_tokens"),
    }


def _model_entry(name: str) -> dict[str, Any]:
    return {"name": name, "model": name, "digest": "", "size": 0, "details": {"format": "gguf"}}


def tags(snapshot: Snapshot) -> dict[str, Any]:
    """``/api/tags``: every model a healthy backend of the pool serves."""
    return {"models": [_model_entry(name) for name in pool_models(snapshot)]}


def loaded(snapshot: Snapshot) -> dict[str, Any]:
    """``/api/ps``: every model loaded somewhere in the pool."""
    names = sorted({name for node in snapshot.nodes for b in node.backends if not b.problem for name in b.loaded})
    return {"models": [_model_entry(name) | {"size_vram": 0} for name in names]}
