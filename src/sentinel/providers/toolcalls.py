"""Lenient reading of tool calls that a model wrote into its text instead of the API's tool-call field.

Small models (Qwen2.5-Coder 0.5B measured here) write ``{"name": ..., "arguments": {...}}`` as a fenced
```json block, as bare JSON, or inside Qwen's ``<tool_call>`` tags. A JSON object counts as a call only when it
names a function (``name`` or ``function.name``) whose arguments are an object (``arguments``/``parameters``,
possibly JSON-encoded as a string). When the caller knows its tools, the name must be one of them; when it
does not, the object must carry an ``arguments``/``parameters`` key. Prose that merely contains JSON is not
a call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sentinel.providers.base import ChatResult, ToolCall, ToolSchema

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class TextToolCalls:
    calls: list[ToolCall] = field(default_factory=list)

    @property
    def lenient(self) -> bool:
        """True when calls were found in the text: the caller says so (the lenient path was used)."""
        return bool(self.calls)


def parse_text_tool_calls(text: str, known_tools: Collection[str] | None = None) -> TextToolCalls:
    """Tool calls written in ``text``: tagged blocks first, then fenced blocks, then bare JSON.

    The first form that yields a call wins, so one call written twice (e.g. in a tag and again in a
    fence) is not executed twice.
    """
    for blocks in (_TAGGED.findall(text), _FENCED.findall(text), [text]):
        calls = [call for block in blocks for call in _calls_in(block, known_tools)]
        if calls:
            return TextToolCalls(calls)
    return TextToolCalls()


def with_text_tool_calls(result: ChatResult, tools: Sequence[ToolSchema] | None) -> ChatResult:
    """``result`` with the calls written in its text, when tools were offered and the API field is empty."""
    if not tools or result.tool_calls:
        return result
    found = parse_text_tool_calls(result.content, tool_names(tools))
    if not found.lenient:
        return result
    return replace(result, tool_calls=found.calls, lenient_tool_calls=True)


def tool_names(tools: Sequence[ToolSchema]) -> set[str]:
    """Names of OpenAI-shaped function schemas (``{"type": "function", "function": {"name": ...}}``)."""
    return {str(tool.get("function", tool).get("name")) for tool in tools}


def _calls_in(block: str, known_tools: Collection[str] | None) -> Iterator[ToolCall]:
    for value in _json_values(block):
        for item in value if isinstance(value, list) else [value]:
            call = _as_call(item)
            if call is None:
                continue
            accepted = call.name in known_tools if known_tools is not None else _names_arguments(item)
            if accepted:
                yield call


def _json_values(text: str) -> Iterator[Any]:
    """Every top-level JSON object or array embedded in ``text``, left to right."""
    position = 0
    while True:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        yield value
        position = end


def _function_part(item: dict[str, Any]) -> dict[str, Any]:
    function = item.get("function")
    return function if isinstance(function, dict) else item


def _names_arguments(item: dict[str, Any]) -> bool:
    part = _function_part(item)
    return "arguments" in part or "parameters" in part


def _as_call(item: Any) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    item = _function_part(item)
    name = item.get("name")
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None
    if not isinstance(name, str) or not name or not isinstance(arguments, dict):
        return None
    return ToolCall(name=name, arguments=arguments)
