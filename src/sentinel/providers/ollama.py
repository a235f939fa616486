"""Ollama's native /api/chat through the ``ollama`` client.

Ollama reports load, prefill (prompt eval) and generation (eval) durations separately, in nanoseconds: the
breakdown that tells a cold model from a long page from a runaway answer. ``think=False`` is sent on every call;
a model without a thinking switch makes Ollama answer 400 "... does not support thinking", after which the
field is dropped for this provider and that is said once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import httpx

from sentinel.providers.base import (
    ChatResult,
    JsonSchema,
    Message,
    Notices,
    ProviderError,
    Timings,
    ToolCall,
    ToolSchema,
    api_key_from_env,
    call_with_connect_retries,
    strip_inline_thinking,
)
from sentinel.providers.servers import OLLAMA, OPENAI, ModelServer, Probe, get_json, register_kind
from sentinel.providers.toolcalls import with_text_tool_calls
from sentinel.settings import ProviderSettings

if TYPE_CHECKING:  # the client is the ``providers`` extra: imported when a provider is built, not to probe
    import ollama

_NS = 1e9


class OllamaProvider:
    def __init__(self, settings: ProviderSettings) -> None:
        self._settings = settings
        self._endpoint = settings.base_url.rstrip("/")
        key = api_key_from_env(settings)
        headers = {"Authorization": f"Bearer {key}"} if key else None
        import ollama

        self._client = ollama.Client(host=self._endpoint, timeout=settings.timeout_s, headers=headers)
        self._send_think = True
        self._notices = Notices(self._endpoint)

    @property
    def num_ctx(self) -> int:
        return self._settings.num_ctx

    def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSchema] | None = None,
        json_schema: JsonSchema | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        options: dict[str, Any] = {"num_ctx": self._settings.num_ctx}
        if self._settings.num_gpu is not None:
            options["num_gpu"] = self._settings.num_gpu
        if temperature is not None:
            options["temperature"] = temperature
        if max_tokens is not None:
            options["num_predict"] = max_tokens
        request: dict[str, Any] = {
            "model": self._settings.model,
            "messages": [_to_ollama(message) for message in messages],
            "tools": list(tools) if tools else None,
            "format": dict(json_schema) if json_schema is not None else None,
            "options": options,
            "keep_alive": self._settings.keep_alive,
        }
        started = time.perf_counter()
        response = self._chat_dropping_refused_think(request)
        result = self._result_from(response, wall_s=time.perf_counter() - started)
        return with_text_tool_calls(result, tools)

    def _chat_dropping_refused_think(self, request: dict[str, Any]) -> ollama.ChatResponse:
        import ollama

        while True:
            think = {"think": False} if self._send_think else {}
            try:
                response = call_with_connect_retries(
                    self._endpoint, partial(self._client.chat, **request, **think, stream=False)
                )
            except ollama.ResponseError as error:
                if self._send_think and 400 <= error.status_code < 500 and "think" in str(error.error).lower():
                    self._send_think = False
                    self._notices.once(
                        "thinking-refused",
                        f"Ollama refused think=false ({error.error}); sending without it. "
                        "A reasoning model may now think before answering (reported if it does).",
                    )
                    continue
                raise ProviderError(
                    f"{self._endpoint}/api/chat answered HTTP {error.status_code}: {error.error}"
                ) from error
            return response

    def _result_from(self, response: ollama.ChatResponse, wall_s: float) -> ChatResult:
        message = response.message
        content, inline_thinking = strip_inline_thinking(message.content or "")
        thinking_seen = inline_thinking or bool(message.thinking)
        if thinking_seen:
            self._notices.once(
                "thinking-seen",
                "the model reasoned although think=false was sent; it pays for that in generation time.",
            )
        if response.prompt_eval_count is None:
            self._notices.once(
                "no-usage",
                "the reply carries no prompt_eval_count: the truncation gate cannot tell whether a page was read "
                "whole (Ollama omits it when the whole prompt came from its cache).",
            )
        return ChatResult(
            content=content,
            tool_calls=[
                ToolCall(name=call.function.name, arguments=dict(call.function.arguments))
                for call in message.tool_calls or []
            ],
            prompt_tokens=response.prompt_eval_count,
            completion_tokens=response.eval_count,
            timings=Timings(
                total_s=_seconds(response.total_duration) or wall_s,
                load_s=_seconds(response.load_duration),
                prefill_s=_seconds(response.prompt_eval_duration),
                generation_s=_seconds(response.eval_duration),
            ),
            finish_reason=response.done_reason,
            thinking_seen=thinking_seen,
        )


def _seconds(nanoseconds: int | None) -> float | None:
    return None if nanoseconds is None else nanoseconds / _NS


def _to_ollama(message: Message) -> dict[str, Any]:
    """The shared OpenAI-shaped history entry in Ollama's dialect: tool-call arguments are objects, not JSON
    strings, and a tool result names its tool instead of a call id."""
    converted: dict[str, Any] = {"role": message["role"], "content": message.get("content") or ""}
    if message.get("tool_calls"):
        converted["tool_calls"] = [
            {"function": {"name": call["function"]["name"], "arguments": _arguments(call["function"])}}
            for call in message["tool_calls"]
        ]
    if message["role"] == "tool" and message.get("name"):
        converted["tool_name"] = message["name"]
    return converted


def _arguments(function: dict[str, Any]) -> dict[str, Any]:
    arguments = function.get("arguments") or {}
    return json.loads(arguments) if isinstance(arguments, str) else dict(arguments)


def _names(entries: list[dict[str, Any]]) -> list[str]:
    return sorted({str(entry.get("name") or entry["model"]) for entry in entries})


@register_kind
class OllamaServer:
    """Ollama: its own API at the root (what it has: ``/api/tags``, with sizes; what is in memory: ``/api/ps``),
    and the OpenAI API under ``/v1``. It takes the context window and GPU layers per request."""

    name = "ollama"
    dialects: tuple[str, ...] = (OLLAMA, OPENAI)
    describe = "'ollama=http://host:11434' (Ollama's root)"

    def openai_base(self, url: str) -> str:
        return f"{url.rstrip('/')}/v1"

    def probe(self, http: httpx.Client, server: ModelServer) -> Probe:
        tags = get_json(http, f"{server.root}/api/tags").get("models") or []
        loaded = get_json(http, f"{server.root}/api/ps").get("models") or []
        sized = [m for m in tags if isinstance(m.get("size"), int)]
        sizes = {str(m.get(key)): m["size"] for m in sized for key in ("name", "model")}
        return Probe(models=_names(tags), loaded=_names(loaded), sizes=sizes)

    def runtime_params(self, role: ProviderSettings) -> dict[str, Any]:
        """num_ctx and num_gpu (seed 000: left unset, part of the model silently runs on the CPU)."""
        params: dict[str, Any] = {"num_ctx": role.num_ctx}
        if role.num_gpu is not None:
            params["num_gpu"] = role.num_gpu
        return params

    def provider(self, role: ProviderSettings) -> OllamaProvider:
        return OllamaProvider(role)
