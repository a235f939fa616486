"""Tool-call repair on the model path: a call a model wrote as text becomes a real ``tool_calls`` message.

Small local models often answer a tools request with the call as text (a fenced JSON block, ``<tool_call>``
tags, ...), which clients such as Open WebUI show as text and never run. The gateway reads such text with the one
lenient parser (``providers.toolcalls``), strictly against the tools offered in *that* request: the name must be
one of them and the arguments must validate against its JSON schema, and the text must hold one call (several
written as text are a dump, not a plan: ``several_calls``). Anything else stays text, untouched: a call is never
invented. A server's own (native) tool calls pass through as they are.

Streams (OpenAI server-sent events) are repaired as they flow: content is held back only while it could still
become a call, and released as soon as it cannot, so prose streams as before; at the end, held text that is a
call goes out as one ``tool_calls`` delta with ``finish_reason: tool_calls``.

A call can also be made sure of before it is written (``constrain_call``): the first answer of a turn (the
request's last message is the user's) is sampled under a JSON schema of the offered calls, one of them with
arguments that fit its schema, through the OpenAI ``response_format`` that llama.cpp (as a grammar) and Ollama
honour. Measured with the small Qwen on llama.cpp, whose GGUF template llama.cpp reads as content-only (its own
tool-call parser and ``tool_choice`` do nothing there): without it 1 in 4 vault questions got a call, with it
every one did (bench/toolcalls.py). The model still picks the tool and writes the arguments; the schema only
rules out what is no call. ``tool_choice`` is honoured the same way: ``required`` or a named function constrain
any answer, ``none`` none.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sentinel.providers.base import JsonSchema, ToolCall
from sentinel.providers.toolcalls import (
    TextToolCalls,
    parse_text_tool_calls,
    tool_schemas,
    undecided_from,
    without_call_text,
)
from sentinel_pool.streaming import DONE, Stream, sse_data

log = logging.getLogger("sentinel.pool.repair")

# Outcomes of a tools request (the metric's label values: a fixed set).
NATIVE, REPAIRED, CONSTRAINED, TEXT = "native", "repaired", "constrained", "text"
UNKNOWN_TOOL, INVALID_ARGUMENTS, SEVERAL_CALLS = "unknown_tool", "invalid_arguments", "several_calls"
TAKEN = (REPAIRED, CONSTRAINED)  # the outcomes whose calls go out as tool_calls
# The outcomes whose call-shaped text is not run: taken out of what a person is shown (the metric counts them).
NOT_RUN = (UNKNOWN_TOOL, INVALID_ARGUMENTS, SEVERAL_CALLS)
NOT_RUN_NOTE = "[Sentinel left out a tool call the model wrote as text and could not run. Ask again.]"
# Appended to an answer the server stopped at max_tokens: a cut answer is said to be cut, never passed off as whole
# (Open WebUI shows a finish_reason to nobody, and a 0.5B model left uncapped can ramble for thousands of tokens).
CUT_NOTE = (
    "\n\n[This answer stopped at the reply length limit (max_tokens). Ask to continue, or raise the limit: "
    "SENTINEL_CHAT__REPLY_TOKENS for Sentinel's model in Open WebUI.]"
)
LENGTH = "length"


class Reports(Protocol):
    def tool_calls(self, model: str, node: str, outcome: str) -> None: ...


@dataclass(frozen=True)
class Verdict:
    """What became of one tools request's answer."""

    outcome: str
    found: TextToolCalls = field(default_factory=TextToolCalls)

    def report(self, observer: Reports, model: str, node: str) -> None:
        observer.tool_calls(model, node, self.outcome)
        if self.outcome in TAKEN:
            calls = [call.name for call in self.found.calls]
            where = {"model": model, "node": node, "form": self.found.form, "tools": calls}
            log.info("tool call repaired" if self.outcome == REPAIRED else "tool call constrained", extra=where)
        elif self.outcome in (UNKNOWN_TOOL, INVALID_ARGUMENTS, SEVERAL_CALLS):
            reasons = [rejected.detail for rejected in self.found.rejected]
            if self.outcome == SEVERAL_CALLS:
                reasons.append(f"{len(self.found.calls)} calls in one text: {[c.name for c in self.found.calls]}")
            log.info("call-shaped text not run, not shown", extra={"model": model, "node": node, "reasons": reasons})


def offered_tools(body: dict[str, Any]) -> dict[str, JsonSchema | None] | None:
    """Name -> arguments schema of the tools a chat request offers; ``None`` when it offers none."""
    tools = body.get("tools")
    if not isinstance(tools, list) or not tools:
        return None
    return tool_schemas([tool for tool in tools if isinstance(tool, dict)]) or None


# What the app allows a turn's first call to be (``sentinel.tools.first_call.opening``): given a tool's name, its
# arguments schema and the user's words, the schema the call may take, or None to leave that tool out. The pool
# knows only the tools a request offers; which of them may open a turn is the app's to say, handed in by a door.
Opening = Callable[[str, JsonSchema | None, str], JsonSchema | None]
# The name of the schema ``constrain_call`` adds: how the answer's verdict knows the call was constrained.
CALL_SCHEMA = "sentinel_tool_call"


def constrain_call(body: dict[str, Any], first_call: Opening | None) -> dict[str, Any]:
    """``body`` with its answer constrained to one call of an offered tool, when the request asks for a call
    (``tool_choice`` ``required`` or a named function) or, given a ``first_call`` policy, when it starts a turn
    (its last message is the user's) and leaves the choice to the model: then only to the calls that policy
    allows. A request with its own ``response_format``, with ``tool_choice: none``, or offering no tools is sent
    as it came."""
    tools = offered_tools(body)
    choice = body.get("tool_choice", "auto")
    if tools is None or body.get("response_format") is not None or choice == "none":
        return body
    if isinstance(choice, dict):
        named = (choice.get("function") or {}).get("name")
        tools = {named: tools[named]} if named in tools else tools
    elif choice != "required":
        messages = body.get("messages")
        last = messages[-1] if isinstance(messages, list) and messages else {}
        if first_call is None or not (isinstance(last, dict) and last.get("role") == "user"):
            return body
        words = _text_of(last)
        allowed = {name: first_call(name, schema, words) for name, schema in tools.items()}
        tools = {name: schema for name, schema in allowed.items() if schema is not None}
        if not tools:
            return body
    calls = [
        {
            "type": "object",
            "properties": {"name": {"const": name}, "arguments": schema or {"type": "object"}},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for name, schema in tools.items()
    ]
    schema = {"name": CALL_SCHEMA, "strict": True, "schema": {"oneOf": calls} if len(calls) > 1 else calls[0]}
    return body | {"response_format": {"type": "json_schema", "json_schema": schema}}


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # OpenAI content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def is_constrained(body: dict[str, Any]) -> bool:
    """Whether ``constrain_call`` constrained this request (its answer's call is then counted as constrained)."""
    response_format = body.get("response_format")
    if not isinstance(response_format, dict):
        return False
    json_schema = response_format.get("json_schema")
    return isinstance(json_schema, dict) and json_schema.get("name") == CALL_SCHEMA


def _judge(found: TextToolCalls, constrained: bool = False) -> Verdict:
    if len(found.calls) > 1:
        # Measured with the small Qwen after a [DONE]: one text listing six calls (graph, listing, relocate,
        # remove, save, search), which run as calls would have moved, deleted and saved what nobody asked for. A
        # model that calls several tools at once does so natively; written as text, several is a dump, not a plan.
        return Verdict(SEVERAL_CALLS, found)
    if found.calls:
        return Verdict(CONSTRAINED if constrained else REPAIRED, found)
    kinds = {rejected.kind for rejected in found.rejected}
    return Verdict(UNKNOWN_TOOL if UNKNOWN_TOOL in kinds else INVALID_ARGUMENTS if kinds else TEXT, found)


def _openai_calls(calls: list[ToolCall], streamed: bool) -> list[dict[str, Any]]:
    out = []
    for index, call in enumerate(calls):
        entry: dict[str, Any] = {
            "id": f"call_{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
        }
        out.append({"index": index, **entry} if streamed else entry)
    return out


def repair_answer(
    answer: dict[str, Any], tools: dict[str, JsonSchema | None], constrained: bool = False
) -> tuple[dict[str, Any], Verdict]:
    """A non-streamed chat completion with the calls its text holds moved into ``tool_calls`` (``constrained``:
    the request was constrained to a call, so a call found is counted as such)."""
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return answer, Verdict(TEXT)
    message = choices[0].get("message") or {}
    if message.get("tool_calls"):
        return answer, Verdict(NATIVE)
    content = message.get("content")
    verdict = _judge(parse_text_tool_calls(content if isinstance(content, str) else "", tools), constrained)
    if verdict.outcome in NOT_RUN:
        content = shown_text(str(content))
        message = message | {"content": content}
        answer = answer | {"choices": [choices[0] | {"message": message}, *choices[1:]]}
        choices = answer["choices"]
    if verdict.outcome not in TAKEN:
        if choices[0].get("finish_reason") == LENGTH:
            cut = choices[0] | {"message": message | {"content": f"{content or ''}{CUT_NOTE}"}}
            return answer | {"choices": [cut, *choices[1:]]}, verdict
        return answer, verdict
    calls = _openai_calls(verdict.found.calls, streamed=False)
    repaired = message | {"content": verdict.found.rest or None, "tool_calls": calls}
    first = choices[0] | {"message": repaired, "finish_reason": "tool_calls"}
    return answer | {"choices": [first, *choices[1:]]}, verdict


def shown_text(text: str) -> str:
    """What a person sees of an answer whose call-shaped text was not run: the prose around it, or a note."""
    return without_call_text(text) or NOT_RUN_NOTE


class StreamRepair:
    """Rewrites one stream's event payloads (``feed``); ``verdict`` once the stream has ended."""

    def __init__(self, tools: dict[str, JsonSchema | None], constrained: bool = False) -> None:
        self.tools, self.constrained = tools, constrained
        self.text, self.released = "", 0
        self.native = False
        self.verdict: Verdict | None = None
        self._template: dict[str, Any] = {}

    def feed(self, data: str) -> list[str]:
        """The payloads to send in place of one received payload (none, it, or several)."""
        if not data or data == DONE:
            return [data] if data else []
        try:
            payload = json.loads(data)
        except json.JSONDecodeError:
            return [data]
        if not isinstance(payload, dict):
            return [data]
        if "error" in payload:
            return [*self._flush_text(), data]
        choices = payload.get("choices") or []
        if not choices:
            return [data]  # the usage event
        self._template = {key: value for key, value in payload.items() if key != "choices"}
        choice = choices[0]
        delta = dict(choice.get("delta") or {})
        if delta.get("tool_calls"):
            self.native = True
        out: list[str] = []
        content = delta.pop("content", None)
        if self.native:
            out.extend(self._flush_text())
            if content:
                delta["content"] = content
        elif isinstance(content, str) and content:
            self.text += content
            hold = undecided_from(self.text, self.released, self.tools)
            if hold > self.released:
                delta["content"] = self.text[self.released : hold]
                self.released = hold
        reason = choice.get("finish_reason")
        if delta or (reason is None and not content):
            out.append(self._event(delta, None, choice))
        if reason is not None:
            out.extend(self._finish(reason, choice))
        return out

    def _event(self, delta: dict[str, Any], reason: str | None, choice: dict[str, Any]) -> str:
        entry = {**choice, "index": choice.get("index", 0), "delta": delta, "finish_reason": reason}
        return json.dumps(self._template | {"choices": [entry]}, ensure_ascii=False)

    def _flush_text(self) -> list[str]:
        held, self.released = self.text[self.released :], len(self.text)
        return [self._event({"content": held}, None, {"index": 0})] if held else []

    def _finish(self, reason: str, choice: dict[str, Any]) -> list[str]:
        if self.native:
            self.verdict = Verdict(NATIVE)
            return [self._event({}, reason, choice)]
        held = self.text[self.released :]
        self.verdict = _judge(parse_text_tool_calls(held, self.tools), self.constrained)
        if self.verdict.outcome in NOT_RUN:
            self.text, self.released = self.text[: self.released] + shown_text(held), self.released
        if self.verdict.outcome not in TAKEN:
            note = [self._event({"content": CUT_NOTE}, None, choice)] if reason == LENGTH else []
            return [*self._flush_text(), *note, self._event({}, reason, choice)]
        self.released = len(self.text)
        out = [self._event({"content": self.verdict.found.rest}, None, choice)] if self.verdict.found.rest else []
        out.append(self._event({"tool_calls": _openai_calls(self.verdict.found.calls, True)}, None, choice))
        return [*out, self._event({}, "tool_calls", choice)]


async def repaired_events(
    blocks: AsyncIterator[bytes], repair: StreamRepair, done: Callable[[Verdict], None]
) -> AsyncIterator[bytes]:
    """``blocks`` (whole SSE events) with text calls repaired; ``done(verdict)`` once the stream has finished."""
    try:
        async for block in blocks:
            payloads = [out for data in sse_data(block) for out in repair.feed(data)]
            if payloads:
                yield "".join(f"data: {data}\n\n" for data in payloads).encode()
    finally:
        await blocks.aclose()  # type: ignore[attr-defined]  # an async generator: its bookkeeping runs now
        if repair.verdict is not None:
            done(repair.verdict)


class RepairedStream:
    """A ``Stream`` whose text calls are repaired on the way; the same face (``node``, ``chunks()``)."""

    def __init__(
        self, stream: Stream, tools: dict[str, JsonSchema | None], observer: Reports, constrained: bool = False
    ) -> None:
        self._stream, self._repair, self._observer = stream, StreamRepair(tools, constrained), observer

    @property
    def node(self) -> str:
        return self._stream.node

    @property
    def sticky(self) -> bool:
        return self._stream.sticky

    def chunks(self) -> AsyncIterator[bytes]:
        model, node = self._stream.candidate.model, self._stream.node
        return repaired_events(self._stream.chunks(), self._repair, lambda v: v.report(self._observer, model, node))
