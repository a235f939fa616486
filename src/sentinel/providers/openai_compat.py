"""Any OpenAI-compatible chat endpoint (llama.cpp's server, vLLM, LM Studio, OpenAI itself) over httpx.

Two things are worse in this shape and both are reported, not hidden: no standard split of a call's time
(llama.cpp's server adds ``timings`` with prompt_ms/predicted_ms, read here as prefill/generation; others, vLLM
included, give only token counts, so the time is the wall clock and ``ChatResult.split_timings`` is False), and
no standard way to switch thinking off.
Thinking-off is sent the ways servers accept (``chat_template_kwargs.enable_thinking`` for llama.cpp, vLLM and
SGLang templates; ``reasoning_effort`` for OpenAI-style reasoning models). A field an endpoint refuses (a 4xx
that names it) is dropped for the rest of this provider's life, and that is said once; reasoning that comes
back anyway is said once too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

import httpx

from sentinel.providers.base import (
    ChatResult,
    ContextExceeded,
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
from sentinel.providers.servers import OPENAI, ModelServer, Probe, get_json, register_kind
from sentinel.providers.toolcalls import with_text_tool_calls
from sentinel.settings import ProviderSettings

# Words in a 4xx body that mean "the prompt does not fit the window" (llama.cpp, OpenAI, vLLM spellings).
_CONTEXT_EXCEEDED = ("exceed_context_size", "context_length_exceeded", "maximum context length")
# Field -> words in an error body that show the endpoint refused that field.
_THINKING_OFF_FIELDS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "chat_template_kwargs": ({"enable_thinking": False}, ("chat_template_kwargs", "enable_thinking")),
    "reasoning_effort": ("none", ("reasoning_effort",)),
}


class OpenAICompatProvider:
    def __init__(self, settings: ProviderSettings) -> None:
        self._settings = settings
        self._endpoint = settings.base_url.rstrip("/")
        key = api_key_from_env(settings)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.Client(base_url=self._endpoint, headers=headers, timeout=settings.timeout_s)
        self._thinking_off = {name: value for name, (value, _) in _THINKING_OFF_FIELDS.items()}
        self._notices = Notices(self._endpoint)

    @property
    def num_ctx(self) -> int:
        return self._settings.num_ctx

    def close(self) -> None:
        self._http.close()

    def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSchema] | None = None,
        json_schema: JsonSchema | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        body: dict[str, Any] = {"model": self._settings.model, "messages": list(messages), "stream": False}
        if temperature is not None:
            body["temperature"] = temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if tools:
            body["tools"] = list(tools)
        if json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": dict(json_schema)},
            }
        started = time.perf_counter()
        payload = self._post_dropping_refused_thinking_fields(body)
        result = self._result_from(payload, total_s=time.perf_counter() - started)
        return with_text_tool_calls(result, tools)

    def _post_dropping_refused_thinking_fields(self, body: dict[str, Any]) -> dict[str, Any]:
        refused: list[str] = []
        while True:
            request = body | self._thinking_off
            response = call_with_connect_retries(
                self._endpoint, partial(self._http.post, "/chat/completions", json=request)
            )
            refused_now = self._refused_thinking_fields(response)
            if not refused_now:
                break
            for name in refused_now:
                del self._thinking_off[name]
            refused += refused_now
        if refused:
            self._notices.once(
                "thinking-refused",
                f"the endpoint refused the thinking-off field(s) {', '.join(refused)}; sending without them. "
                "A reasoning model may now think before answering (reported if it does).",
            )
        if response.is_error and any(word in response.text.lower() for word in _CONTEXT_EXCEEDED):
            raise ContextExceeded(
                f"{self._endpoint}: the prompt does not fit the {self._settings.num_ctx}-token window the role is "
                f"configured with (server: {response.text[:300]}); give the role a larger window or a shorter input"
            )
        if response.is_error:
            raise ProviderError(
                f"{self._endpoint}/chat/completions answered HTTP {response.status_code}: {response.text[:500]}"
            )
        try:
            payload = response.json()
        except json.JSONDecodeError as error:
            raise ProviderError(
                f"{self._endpoint}/chat/completions answered non-JSON: {response.text[:200]!r}"
            ) from error
        if not isinstance(payload, dict):
            raise ProviderError(f"{self._endpoint}/chat/completions answered {type(payload).__name__}, not an object")
        return payload

    def _refused_thinking_fields(self, response: httpx.Response) -> list[str]:
        if not 400 <= response.status_code < 500:
            return []
        text = response.text.lower()
        return [name for name in self._thinking_off if any(word in text for word in _THINKING_OFF_FIELDS[name][1])]

    def _result_from(self, payload: dict[str, Any], total_s: float) -> ChatResult:
        try:
            choice = payload["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError) as error:
            raise ProviderError(f"{self._endpoint}: reply has no choices[0].message: {str(payload)[:300]}") from error
        content, inline_thinking = strip_inline_thinking(message.get("content") or "")
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        thinking_seen = inline_thinking or bool(reasoning)
        if thinking_seen:
            self._notices.once(
                "thinking-seen",
                "the model reasoned although thinking was switched off; it pays for that in generation time.",
            )
        usage = payload.get("usage") or {}
        prompt_tokens = usage.get("prompt_tokens")
        if prompt_tokens is None:
            self._notices.once(
                "no-usage",
                "the reply carries no usage: the truncation gate cannot tell whether a page was read whole.",
            )
        return ChatResult(
            content=content,
            tool_calls=[self._tool_call(raw) for raw in message.get("tool_calls") or []],
            prompt_tokens=prompt_tokens,
            completion_tokens=usage.get("completion_tokens"),
            timings=server_timings(payload, total_s),
            finish_reason=choice.get("finish_reason"),
            thinking_seen=thinking_seen,
        )

    def _tool_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        arguments = function.get("arguments") or {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as error:
                raise ProviderError(
                    f"{self._endpoint}: tool call {function.get('name')!r} has arguments that are not JSON: "
                    f"{arguments[:200]!r}"
                ) from error
        return ToolCall(name=str(function.get("name", "")), arguments=arguments, id=raw.get("id"))


def server_timings(payload: dict[str, Any], total_s: float) -> Timings:
    """Prefill and generation as llama.cpp's server reports them (``timings.prompt_ms``/``predicted_ms``);
    the wall clock alone where the reply has no such block."""
    reported = payload.get("timings")
    if isinstance(reported, dict):
        prompt_ms, predicted_ms = reported.get("prompt_ms"), reported.get("predicted_ms")
        if isinstance(prompt_ms, int | float) and isinstance(predicted_ms, int | float):
            return Timings(total_s=total_s, prefill_s=prompt_ms / 1000, generation_s=predicted_ms / 1000)
    return Timings(total_s=total_s)


@register_kind
class OpenAIServer:
    """Any OpenAI-compatible server, configured as its base up to ``/v1``: it lists its models (``/models``);
    llama.cpp's server also says (``/props`` at the root) how many slots it has and whether it has unloaded its
    model to sleep. Its ``/slots`` is never read: that wakes a sleeping server and resets its idle timer. A server
    that is not llama.cpp is taken to keep what it lists loaded, since there is no standard way to ask."""

    name = "openai"
    dialects: tuple[str, ...] = (OPENAI,)
    describe = "'openai=http://host:8080/v1' (an OpenAI-compatible base up to /v1)"

    def openai_base(self, url: str) -> str:
        return url.rstrip("/")

    def probe(self, http: httpx.Client, server: ModelServer) -> Probe:
        listed = get_json(http, f"{server.openai_base}/models").get("data") or []
        available = sorted({str(entry["id"]) for entry in listed})
        probe = Probe(models=available, loaded=available)
        props = http.get(f"{server.root}/props")
        if props.status_code != 200:  # not llama.cpp: nothing more to learn
            return probe
        details = props.json()
        probe.slots, probe.awake = details.get("total_slots"), not details.get("is_sleeping")
        if not probe.awake:
            probe.loaded = []
        return probe

    def runtime_params(self, role: ProviderSettings) -> dict[str, Any]:
        return {}  # the server was started with its window and layers

    def provider(self, role: ProviderSettings) -> OpenAICompatProvider:
        return OpenAICompatProvider(role)
