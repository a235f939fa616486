"""A provider that answers from a script: for tests that must force a model behaviour (an invented concept,
a flip-flopping merge answer, a truncated evaluation, missing usage) that a real model will not produce on cue.

Each reply is a ``ChatResult`` (full control: tokens, finish reason, thinking), a plain string (content with
rough token counts), or a function of the request (answers that depend on what was asked). Every request is
recorded so a test can check what the code sent.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sentinel.providers.base import (
    ChatResult,
    JsonSchema,
    Message,
    ProviderError,
    ProviderUnavailable,
    Timings,
    ToolSchema,
)
from sentinel.providers.toolcalls import with_text_tool_calls

# Rough characters per token for plain-string replies: enough for a gate to see a plausible in-window count.
_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class ChatRequest:
    messages: list[Message]
    tools: list[ToolSchema] | None
    json_schema: JsonSchema | None
    temperature: float | None
    max_tokens: int | None


Reply = ChatResult | str | Callable[[ChatRequest], "ChatResult | str"]


def cited_sentences(*written: str, cite: int = 1) -> str:
    """The answer step's reply: each of ``written`` as a sentence citing passage ``cite``."""
    return json.dumps({"sentences": [{"text": text, "cite": cite} for text in written]})


class ScriptedProvider:
    def __init__(self, replies: Iterable[Reply] = (), *, num_ctx: int = 8192) -> None:
        self._replies: deque[Reply] = deque(replies)
        self._num_ctx = num_ctx
        self.requests: list[ChatRequest] = []

    @property
    def num_ctx(self) -> int:
        return self._num_ctx

    def push(self, *replies: Reply) -> None:
        self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """Replies not yet used: a test can assert the code asked exactly as often as scripted."""
        return len(self._replies)

    def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSchema] | None = None,
        json_schema: JsonSchema | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        request = ChatRequest(
            messages=[dict(message) for message in messages],
            tools=list(tools) if tools else None,
            json_schema=json_schema,
            temperature=temperature,
            max_tokens=max_tokens,
        )
        self.requests.append(request)
        if not self._replies:
            raise ProviderError(
                f"scripted provider has no reply left for request {len(self.requests)}: "
                "the code asked more often than the test scripted (push more replies, or fix the extra call)"
            )
        reply = self._replies.popleft()
        answer = reply(request) if callable(reply) else reply
        result = answer if isinstance(answer, ChatResult) else _plain(answer, request)
        return with_text_tool_calls(result, tools)


def _plain(content: str, request: ChatRequest) -> ChatResult:
    prompt_chars = sum(len(str(message.get("content") or "")) for message in request.messages)
    return ChatResult(
        content=content,
        prompt_tokens=max(1, prompt_chars // _CHARS_PER_TOKEN),
        completion_tokens=max(1, len(content) // _CHARS_PER_TOKEN),
        timings=Timings(total_s=0.0),
        finish_reason="stop",
    )


def unreachable(_: ChatRequest) -> str:
    """A script step for a model server that cannot be reached: the answer path then quotes the vault."""
    raise ProviderUnavailable("no connection")
