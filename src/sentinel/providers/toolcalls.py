"""Lenient reading of tool calls that a model wrote into its text instead of the API's tool-call field.

The one parser for this: the providers use it on their answers, the pool's repair layer (``pool/repair``) on
every client's. Forms seen in real models' output:

- fenced ```json blocks and bare JSON ``{"name": ..., "arguments": {...}}`` (Qwen2.5-Coder 0.5B, measured here),
  also ``parameters`` for ``arguments`` (Llama 3.2) and ``{"function": {...}}`` wrappers;
- Hermes/Qwen ``<tool_call>...</tool_call>`` tags;
- Llama 3.1's ``<|python_tag|>`` prefix;
- Mistral's ``[TOOL_CALLS]`` prefix, followed by a JSON list or by ``name[ARGS]{...}``.

A JSON object counts as a call only when it names a function whose arguments are an object (possibly
JSON-encoded as a string). When the caller gives its tools, the name must be one of them, and when it gives
their JSON schemas the arguments must validate: anything else stays text (``rejected`` says why). When it gives
no tools, the object must carry an ``arguments``/``parameters`` key. Prose that merely contains JSON is not a call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import jsonschema

from sentinel.providers.base import ChatResult, JsonSchema, ToolCall, ToolSchema

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_PYTHON_TAG = re.compile(r"<\|python_tag\|>(.*?)(?=<\|python_tag\|>|<\|eo[mt]_id\|>|$)", re.DOTALL)
_MISTRAL = re.compile(r"\[TOOL_CALLS\](.*?)(?=\[TOOL_CALLS\]|</s>|$)", re.DOTALL)
_MISTRAL_NAMED = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*(?:\[CALL_ID\]\s*\w+\s*)?\[ARGS\]")
_FENCED = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()
# What may open a call in a stream, longest first; "{" and "[" open bare JSON.
_OPENERS = ("<|python_tag|>", "[TOOL_CALLS]", "<tool_call>", "```", "{", "[")
_LITERALS = ("true", "false", "null")
_END_TOKENS = re.compile(r"<\|eo[mt]_id\|>|</s>")

Tools = Mapping[str, JsonSchema | None] | Collection[str]


@dataclass(frozen=True)
class Rejected:
    """A call-shaped object that was not taken: ``kind`` is ``unknown_tool`` or ``invalid_arguments``."""

    kind: str
    detail: str


@dataclass(frozen=True)
class TextToolCalls:
    calls: list[ToolCall] = field(default_factory=list)
    form: str = ""  # how the calls were written: tagged, python_tag, mistral, fenced, bare
    rest: str = ""  # the text outside the calls (the model's prose around them)
    rejected: list[Rejected] = field(default_factory=list)

    @property
    def lenient(self) -> bool:
        """True when calls were found in the text: the caller says so (the lenient path was used)."""
        return bool(self.calls)


@dataclass(frozen=True)
class _Block:
    text: str
    span: tuple[int, int]  # what the calls in it cover in the whole text (the tag or fence included)


def parse_text_tool_calls(text: str, known_tools: Tools | None = None) -> TextToolCalls:
    """Tool calls written in ``text``: tagged blocks first, then prefixed, then fenced, then bare JSON.

    ``known_tools``: the offered names, or name -> JSON schema of the arguments (then they are validated).
    The first form that yields a call wins, so one call written twice (e.g. in a tag and again in a fence) is
    not executed twice; the other forms' copies of the same calls are left out of ``rest`` too.
    """
    rejected: list[Rejected] = []
    found: list[tuple[str, list[ToolCall], list[tuple[int, int]]]] = []
    for form, blocks in _forms(text):
        calls, spans = [], []
        for block in blocks:
            in_block = list(_calls_in(block.text, known_tools, rejected))
            if in_block:
                calls.extend(in_block)
                spans.append(block.span)
        if calls:
            found.append((form, calls, spans))
    if not found:
        return TextToolCalls(rest=text, rejected=_unique(rejected))
    form, calls, _ = found[0]
    covered = [span for _, other, spans in found if all(call in calls for call in other) for span in spans]
    return TextToolCalls(calls, form, _without(text, covered))


def undecided_from(text: str, start: int, known_tools: Tools | None = None) -> int:
    """Where, at or after ``start``, ``text`` (a stream so far) could still hold a call: everything before it
    can be released as text now. ``len(text)`` when nothing after ``start`` can become a call any more."""
    position = start
    while True:
        opened = [(text.find(opener, position), opener) for opener in _OPENERS]
        opened = [(index, opener) for index, opener in opened if index >= 0]
        partial = _partial_opener(text, position)
        if not opened:
            return partial
        index, opener = min(opened, key=lambda found: (found[0], -len(found[1])))  # "[TOOL_CALLS]" over "["
        if partial < index:
            return partial
        end = _segment_end(text, index, opener)
        if end is None or parse_text_tool_calls(text[index:end], known_tools).calls:
            return index  # still open, or a whole call: hold it (the end of the stream decides)
        position = end


def with_text_tool_calls(result: ChatResult, tools: Sequence[ToolSchema] | None) -> ChatResult:
    """``result`` with the calls written in its text, when tools were offered and the API field is empty."""
    if not tools or result.tool_calls:
        return result
    found = parse_text_tool_calls(result.content, tool_schemas(tools))
    if not found.lenient:
        return result
    return replace(result, tool_calls=found.calls, lenient_tool_calls=True)


def tool_names(tools: Sequence[ToolSchema]) -> set[str]:
    """Names of OpenAI-shaped function schemas (``{"type": "function", "function": {"name": ...}}``)."""
    return set(tool_schemas(tools))


def tool_schemas(tools: Sequence[ToolSchema]) -> dict[str, JsonSchema | None]:
    """Name -> arguments schema of OpenAI-shaped function schemas (``None`` where a tool gives none)."""
    out: dict[str, JsonSchema | None] = {}
    for tool in tools:
        function = tool.get("function", tool)
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            out[function["name"]] = parameters if isinstance(parameters, Mapping) else None
    return out


def _forms(text: str) -> Iterator[tuple[str, list[_Block]]]:
    yield "tagged", [_Block(m.group(1), m.span()) for m in _TAGGED.finditer(text)]
    yield "python_tag", [_Block(m.group(1), m.span()) for m in _PYTHON_TAG.finditer(text)]
    yield "mistral", [_mistral_block(m) for m in _MISTRAL.finditer(text)]
    yield "fenced", [_Block(m.group(1), m.span()) for m in _FENCED.finditer(text)]
    yield "bare", [_Block(text[start:end], (start, end)) for _, start, end in _json_values(text)]


def _mistral_block(match: re.Match[str]) -> _Block:
    """``[TOOL_CALLS]name[ARGS]{...}`` (newer Mistral templates) read as the JSON call it stands for."""
    body = match.group(1)
    named = _MISTRAL_NAMED.match(body)
    if named:
        decoded = _decode(body, _skip_space(body, named.end()))
        if isinstance(decoded, tuple):
            body = json.dumps({"name": named.group(1), "arguments": decoded[0]})
    return _Block(body, match.span())


def _calls_in(block: str, known_tools: Tools | None, rejected: list[Rejected]) -> Iterator[ToolCall]:
    for value, _, _ in _json_values(block):
        for item in value if isinstance(value, list) else [value]:
            call = _as_call(item)
            if call is None:
                continue
            if known_tools is None:
                if _names_arguments(item):
                    yield call
            elif call.name not in known_tools:
                rejected.append(Rejected("unknown_tool", f"{call.name!r} is not one of the tools offered"))
            elif (problem := _argument_problem(call, known_tools)) is not None:
                rejected.append(Rejected("invalid_arguments", problem))
            else:
                yield call


def _argument_problem(call: ToolCall, known_tools: Tools) -> str | None:
    schema = known_tools.get(call.name) if isinstance(known_tools, Mapping) else None
    if schema is None:
        return None
    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(call.arguments))
    except jsonschema.exceptions.SchemaError as broken:
        return f"the schema of tool {call.name!r} is not valid JSON Schema: {broken.message}"
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "arguments"
    return f"arguments of {call.name!r} do not match its schema at {where}: {error.message}"


def _json_values(text: str) -> Iterator[tuple[Any, int, int]]:
    """Every top-level JSON object or array embedded in ``text``, left to right, with its span."""
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
        yield value, start, end
        position = end


def _decode(text: str, start: int) -> tuple[Any, int] | str:
    """The JSON value at ``start`` and its end, or "open" (the text ran out inside it) or "bad"."""
    try:
        return _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as error:
        tail = text[error.pos :].strip()
        if error.msg.startswith("Unterminated string") or not tail or any(w.startswith(tail) for w in _LITERALS):
            return "open"
        return "bad"


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _segment_end(text: str, index: int, opener: str) -> int | None:
    """Where the possible call opened at ``index`` ends (``None``: not yet known, the text ran out in it)."""
    after = index + len(opener)
    if opener == "<tool_call>":
        close = text.find("</tool_call>", after)
        return None if close < 0 else close + len("</tool_call>")
    if opener == "```":
        line = text.find("\n", after)
        close = text.find("```", line) if line >= 0 else -1
        return None if close < 0 else close + 3
    if opener in ("<|python_tag|>", "[TOOL_CALLS]"):
        body = _skip_space(text, after)
        named = _MISTRAL_NAMED.match(text, body) if opener == "[TOOL_CALLS]" else None
        if named:
            body = _skip_space(text, named.end())
        elif opener == "[TOOL_CALLS]" and re.fullmatch(r"\s*[\w.-]*(\[[A-Z_]*)?", text[body:]):
            return None  # a name still being written
        if body >= len(text):
            return None
        decoded = _decode(text, body)
        return decoded[1] if isinstance(decoded, tuple) else None if decoded == "open" else after
    if opener == "[" and text[_skip_space(text, after) : _skip_space(text, after) + 1] not in ("{", ""):
        return after  # a list of calls holds objects: "[[Pricing]]" is not one
    decoded = _decode(text, index)
    return decoded[1] if isinstance(decoded, tuple) else None if decoded == "open" else after


def _partial_opener(text: str, position: int) -> int:
    """Where the end of ``text`` begins an opener cut short ("<tool_", "``"), or ``len(text)``."""
    for size in range(max(map(len, _OPENERS)) - 1, 0, -1):
        suffix = text[-size:]
        if len(text) - size >= position and any(len(o) > size and o.startswith(suffix) for o in _OPENERS):
            return len(text) - size
    return len(text)


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    keep, position = [], 0
    for start, end in sorted(spans):
        if start >= position:
            keep.append(text[position:start])
            position = end
        else:
            position = max(position, end)
    keep.append(text[position:])
    return re.sub(r"\n{3,}", "\n\n", _END_TOKENS.sub("", "".join(keep))).strip()


def _unique(rejected: list[Rejected]) -> list[Rejected]:
    return list(dict.fromkeys(rejected))


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


_FENCE_OR_TAG = re.compile(r"```.*?(?:```|$)|<tool_call>.*?(?:</tool_call>|$)|\[TOOL_CALLS\]", re.DOTALL)


def _is_call_shaped(value: object) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_is_call_shaped(item) for item in value)
    return isinstance(value, dict) and ("name" in value or "function" in value) and len(value) <= 4


def without_call_text(text: str) -> str:
    """``text`` with everything shaped like a tool call taken out (fenced blocks, tags, JSON objects naming a
    function): what a person may be shown of an answer whose calls were not run."""
    text = _FENCE_OR_TAG.sub(" ", text)
    decoder, out, at = json.JSONDecoder(), [], 0
    while at < len(text):
        start = min((i for i in (text.find("{", at), text.find("[", at)) if i != -1), default=-1)
        if start == -1:
            break
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            out.append(text[at : start + 1])
            at = start + 1
            continue
        out.append(text[at:start] if _is_call_shaped(value) else text[at:end])
        at = end
    out.append(text[at:])
    return re.sub(r"^[\s.,;:]+", "", " ".join("".join(out).split()))
