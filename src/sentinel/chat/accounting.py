"""Tokens and time, per model call, per turn and per session, and what the context window holds.

Token counts are the server's own (``prompt_tokens`` / ``completion_tokens`` of each reply); nothing is
estimated. The tool schemas' share is measured once, at the start, as the difference the schemas make to the
server's count for the same two messages: that is the model's own tokenizer and chat template, which no
offline tokenizer reproduces for every provider. An endpoint that reports no usage leaves the numbers unknown,
and that is said rather than guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sentinel.providers import ChatProvider, ChatResult, Timings
from sentinel.providers.base import ToolSchema

_PROBE_USER = "ok"


@dataclass(frozen=True)
class CallUsage:
    """One model request: the tokens the server reported and the time it took."""

    prompt_tokens: int | None
    completion_tokens: int | None
    timings: Timings
    with_schemas: bool = True  # the request carried the tool schemas (not after the cap was reached)

    @classmethod
    def of(cls, result: ChatResult, *, with_schemas: bool = True) -> CallUsage:
        return cls(result.prompt_tokens, result.completion_tokens, result.timings, with_schemas)

    @property
    def context_tokens(self) -> int | None:
        """What the window held once this reply was written."""
        if self.prompt_tokens is None:
            return None
        return self.prompt_tokens + (self.completion_tokens or 0)


@dataclass(frozen=True)
class SchemaCost:
    """What every request pays before the conversation: the tool schemas, and the system prompt with the chat
    template around it. ``None`` when the endpoint reports no usage."""

    schema_tokens: int | None
    base_tokens: int | None
    how: str

    @property
    def start_tokens(self) -> int | None:
        """What the window holds before the first message: system prompt, template and schemas."""
        if self.schema_tokens is None or self.base_tokens is None:
            return None
        return self.base_tokens + self.schema_tokens


def measure_schema_cost(provider: ChatProvider, system_prompt: str, schemas: Sequence[ToolSchema]) -> SchemaCost:
    """Ask for one token twice, with and without the schemas, and take the difference of the prompt counts.

    The probe without schemas goes first, so the second one leaves the server holding the prefix (system prompt
    and schemas) that the first real request starts with: servers that cache prompts do not pay for it twice.
    """
    probe = [{"role": "system", "content": system_prompt}, {"role": "user", "content": _PROBE_USER}]
    bare = provider.chat(probe, max_tokens=1)
    with_tools = provider.chat(probe, tools=schemas, max_tokens=1)
    if bare.prompt_tokens is None or with_tools.prompt_tokens is None:
        return SchemaCost(None, None, "unknown: the endpoint reports no token usage")
    schema = with_tools.prompt_tokens - bare.prompt_tokens
    how = (
        f"measured by the server: {with_tools.prompt_tokens} prompt tokens with the {len(schemas)} schemas, "
        f"{bare.prompt_tokens} without"
    )
    # The base keeps the probe's one-word message and its template wrapping: a real request carries a user
    # message too, so this is the floor every request starts from.
    return SchemaCost(schema, bare.prompt_tokens, how)


@dataclass(frozen=True)
class Usage:
    """Sums over a run of model calls. Timings are split only when every call reported the split."""

    calls: int
    calls_with_schemas: int
    prompt_tokens: int
    completion_tokens: int
    unreported: int  # calls whose reply carried no usage: their tokens are missing from the sums
    total_s: float
    load_s: float | None
    prefill_s: float | None
    generation_s: float | None

    def schema_share(self, cost: SchemaCost) -> int | None:
        """Prompt tokens spent re-sending the schemas with every request that offered tools."""
        return None if cost.schema_tokens is None else cost.schema_tokens * self.calls_with_schemas


def usage_of(calls: Sequence[CallUsage]) -> Usage:
    split = bool(calls) and all(call.timings.split for call in calls)

    def total(part: str) -> float | None:
        return sum(getattr(call.timings, part) or 0.0 for call in calls) if split else None

    return Usage(
        calls=len(calls),
        calls_with_schemas=sum(1 for call in calls if call.with_schemas),
        prompt_tokens=sum(call.prompt_tokens or 0 for call in calls),
        completion_tokens=sum(call.completion_tokens or 0 for call in calls),
        unreported=sum(1 for call in calls if call.prompt_tokens is None),
        total_s=sum(call.timings.total_s for call in calls),
        load_s=total("load_s"),
        prefill_s=total("prefill_s"),
        generation_s=total("generation_s"),
    )


@dataclass(frozen=True)
class Budget:
    """The context window and what fills it now. ``None`` parts are unknown (no usage reported)."""

    window: int
    in_context: int | None
    schema_tokens: int | None  # of ``in_context``: 0 when the last request offered no tools
    base_tokens: int | None
    schemas_withheld: bool = False  # the last request offered no tools (cap reached); the next one will

    @property
    def conversation_tokens(self) -> int | None:
        if self.in_context is None or self.schema_tokens is None or self.base_tokens is None:
            return None
        return self.in_context - self.schema_tokens - self.base_tokens

    @property
    def free(self) -> int | None:
        return None if self.in_context is None else self.window - self.in_context

    @property
    def share(self) -> float | None:
        return None if self.in_context is None else self.in_context / self.window


def budget(window: int, last_call: CallUsage | None, cost: SchemaCost) -> Budget:
    """The window as the last reply left it; before any reply, what the first request starts from."""
    if last_call is None:
        return Budget(window, cost.start_tokens, cost.schema_tokens, cost.base_tokens)
    withheld = not last_call.with_schemas
    schema = 0 if withheld else cost.schema_tokens
    return Budget(window, last_call.context_tokens, schema, cost.base_tokens, withheld)
