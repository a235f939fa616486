"""What every model provider promises: one chat call in, one ``ChatResult`` out.

Messages travel in the OpenAI chat shape (``role``, ``content``, optional ``tool_calls`` / ``tool_call_id``)
because it is the most widely spoken one; providers that speak another dialect (Ollama) translate at their edge.
Everything a gate needs to decide is on the result: the tokens the server says it evaluated (``None`` when it
did not say), why generation stopped, and whether the model reasoned although asked not to.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import httpx
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from sentinel.errors import BadInput, Unavailable
from sentinel.settings import ProviderSettings

Message = dict[str, Any]
ToolSchema = Mapping[str, Any]
JsonSchema = Mapping[str, Any]

log = logging.getLogger("sentinel.providers")

T = TypeVar("T")

# A server that is restarting or still loading refuses connections for a moment; more than a few tries
# only hides a server that is not there.
CONNECT_ATTEMPTS = 3
_CONNECT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError)
_INLINE_THINKING = re.compile(r"^\s*<think>.*?(?:</think>|$)\s*", re.DOTALL)


class ProviderError(Unavailable, RuntimeError):
    """The model server answered, but not with something usable (HTTP error, malformed body)."""


class ProviderUnavailable(ProviderError):
    """The model server could not be reached, even after the bounded retries."""


class ContextExceeded(ProviderError):
    """The server refused the prompt as longer than its context window (llama.cpp and OpenAI do; Ollama cuts
    silently instead, which the truncation gate catches from the usage)."""


class ProviderNotConfigured(BadInput, ValueError):
    """A role has no model configured; the message names the settings to set."""


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class Timings:
    """Seconds spent on one call. ``load_s``/``prefill_s``/``generation_s`` are ``None`` unless the server
    reported them (Ollama does; the OpenAI shape gives one total, measured here as wall clock)."""

    total_s: float
    load_s: float | None = None
    prefill_s: float | None = None
    generation_s: float | None = None

    @property
    def split(self) -> bool:
        return self.prefill_s is not None and self.generation_s is not None


@dataclass(frozen=True)
class ChatResult:
    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    # True when the calls were read out of the text (fenced/bare JSON, <tool_call> tags), not the API field.
    lenient_tool_calls: bool = False
    # Tokens the server says it evaluated / generated; None when the server returned no usage at all,
    # which leaves the truncation gate blind (reported, never guessed).
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    timings: Timings = field(default_factory=lambda: Timings(total_s=0.0))
    # "stop", "length" (output cut at max_tokens or the window), "tool_calls", or None when not reported.
    finish_reason: str | None = None
    # The model produced reasoning although thinking was switched off.
    thinking_seen: bool = False

    @property
    def split_timings(self) -> bool:
        return self.timings.split


class ChatProvider(Protocol):
    """One configured model role. Implementations: ``OllamaProvider``, ``OpenAICompatProvider``,
    ``tests.support.scripted.ScriptedProvider``."""

    @property
    def num_ctx(self) -> int:
        """The context window the truncation gate compares ``prompt_tokens`` against."""
        ...

    def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSchema] | None = None,
        json_schema: JsonSchema | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Send one chat turn. ``temperature=None`` leaves sampling to the server (conversation role);
        the analysis roles keep the default 0 and no other sampling parameter is ever sent.
        ``json_schema`` constrains the reply to JSON of that schema; ``tools`` are OpenAI-shaped function
        schemas."""
        ...


def assistant_message(result: ChatResult) -> Message:
    """The history entry for a model reply, in the shared (OpenAI) shape, tool calls included."""
    message: Message = {"role": "assistant", "content": result.content}
    if result.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
            }
            for index, call in enumerate(result.tool_calls)
        ]
    return message


def tool_message(call: ToolCall, content: str, index: int = 0) -> Message:
    """The history entry that carries a tool's result back to the model."""
    return {"role": "tool", "tool_call_id": call.id or f"call_{index}", "name": call.name, "content": content}


class Notices:
    """Says each named thing once per provider instance: a run reports a degraded endpoint, it does not
    repeat it on every page."""

    def __init__(self, endpoint: str) -> None:
        self._endpoint = endpoint
        self._said: set[str] = set()

    def once(self, key: str, message: str, level: int = logging.WARNING) -> None:
        if key in self._said:
            return
        self._said.add(key)
        log.log(level, "%s: %s", self._endpoint, message)


def call_with_connect_retries(endpoint: str, call: Callable[[], T]) -> T:
    """Run ``call``, retrying connection failures a bounded number of times with backoff."""
    retrying = Retrying(
        retry=retry_if_exception_type(_CONNECT_ERRORS),
        stop=stop_after_attempt(CONNECT_ATTEMPTS),
        wait=wait_exponential(multiplier=0.5, max=4),
        reraise=True,
    )
    try:
        return retrying(call)
    except _CONNECT_ERRORS as error:
        raise ProviderUnavailable(
            f"{endpoint}: no connection after {CONNECT_ATTEMPTS} attempts ({error}). "
            "Start the model server there, or point the role's base_url at one that runs."
        ) from error
    except httpx.TimeoutException as error:  # connected, but the answer took longer than the role allows
        raise ProviderError(
            f"{endpoint}: no answer within the role's timeout_s ({type(error).__name__}); raise timeout_s if the "
            "model is merely slow on this machine."
        ) from error


def api_key_from_env(settings: ProviderSettings) -> str | None:
    """The API key, read from the environment variable the settings name (never from a command line)."""
    if not settings.api_key_env:
        return None
    key = os.environ.get(settings.api_key_env, "").strip()
    if not key:
        raise ProviderNotConfigured(
            f"api_key_env names the environment variable {settings.api_key_env!r}, but it is not set or empty: "
            f"export {settings.api_key_env}=<key> before starting, or clear api_key_env for a keyless server."
        )
    return key


def strip_inline_thinking(content: str) -> tuple[str, bool]:
    """Content without a leading ``<think>...</think>`` block, and whether there was one."""
    stripped = _INLINE_THINKING.sub("", content, count=1)
    return stripped, stripped != content
