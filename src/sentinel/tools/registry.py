"""The seven primitives as one table: their model-facing schemas, and the one way to call them.

Everything that serves tools (the API service, ``sentinel chat``) goes through ``call_tool`` so the output
policy, argument checking, the repeated-search rule and the health line hold the same everywhere.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from sentinel.maintain.health import health_line
from sentinel.settings import Folders
from sentinel.tools import graph, listing, read, relocate, remove, search, write
from sentinel.tools.arguments import unencodable_argument
from sentinel.tools.context import ToolContext
from sentinel.tools.faults import refused
from sentinel.tools.policy import Continuation, Status, ToolResult, retry


@dataclass(frozen=True)
class Tool:
    """One primitive. ``writes`` decides who may call it (a read key never can); ``destructive`` and ``idempotent``
    are the hints agents get over MCP (a destructive call may lose what is there; an idempotent one may be
    repeated with no further effect)."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[..., ToolResult]
    writes: bool = False
    destructive: bool = False
    idempotent: bool = True


@dataclass(frozen=True)
class ToolOutput:
    """A call's rendered text (what the model reads) and the data behind it, for doors that carry structure."""

    text: str
    status: Status
    continuation: Continuation | None = None
    pages: tuple[str, ...] = ()


def _schema(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def _s(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


_CURSOR = {"type": "integer", "description": "from a [more] line"}
_PATH = _s("vault-relative, e.g. notes/Topic.md")

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in [
        Tool(
            "search",
            search.DESCRIPTION,
            _schema(
                ["query"],
                query=_s("words or a question"),
                rung=_s("summary or body", enum=["summary", "body"]),
                cursor=_CURSOR,
            ),
            search.search,
        ),
        Tool(
            "read",
            read.DESCRIPTION,
            _schema(
                ["path"],
                path=_PATH,
                depth=_s("outline, section or page", enum=["outline", "section", "page"]),
                section=_s("heading or number, with depth=section"),
                cursor=_CURSOR,
            ),
            read.read,
        ),
        Tool(
            "listing",
            listing.DESCRIPTION,
            _schema(
                [], folder=_s("e.g. notes; empty = all"), filter=_s("e.g. type:concept sort:recent"), cursor=_CURSOR
            ),
            listing.listing,
        ),
        Tool("graph", graph.DESCRIPTION, _schema(["target"], target=_s("page path or name")), graph.graph),
        Tool(
            "write",
            write.DESCRIPTION,
            _schema(
                ["path", "content"],
                path=_PATH,
                content=_s("markdown"),
                mode=_s("create, append or replace", enum=["create", "append", "replace"]),
                expected_hash=_s("hash from read; needed for replace"),
            ),
            write.write,
            writes=True,
            destructive=True,  # mode=replace overwrites
            idempotent=False,
        ),
        Tool(
            "relocate",
            relocate.DESCRIPTION,
            _schema(["source", "destination"], source=_PATH, destination=_PATH),
            relocate.relocate,
            writes=True,
            idempotent=False,
        ),
        Tool("remove", remove.DESCRIPTION, _schema(["path"], path=_PATH), remove.remove, writes=True, destructive=True),
    ]
}


def _arguments_model(tool: Tool) -> type[BaseModel]:
    """A strict model of a primitive's arguments (everything after the context), from its signature."""
    params = list(inspect.signature(tool.run).parameters.values())[1:]
    hints = get_type_hints(tool.run)
    fields: dict[str, Any] = {
        p.name: (hints[p.name], ... if p.default is inspect.Parameter.empty else p.default) for p in params
    }
    return create_model(f"{tool.name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)


ARGUMENTS = {name: _arguments_model(tool) for name, tool in TOOLS.items()}


def in_folders(value: Any, folders: Folders) -> Any:
    """A description or a schema (its descriptions and examples) naming the folders as ``folders`` names them:
    the tools are written with the default names, which are settings."""
    if isinstance(value, str):
        return folders.in_text(value)
    if isinstance(value, dict):
        return {key: in_folders(item, folders) for key, item in value.items()}
    if isinstance(value, list):
        return [in_folders(item, folders) for item in value]
    return value


def tool_schemas(folders: Folders | None = None) -> list[dict[str, Any]]:
    """The seven tools in the OpenAI function-calling shape (Ollama accepts the same), in these folders' names
    (none: the default ones)."""
    folders = folders or Folders()
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": folders.in_text(t.description),
                "parameters": in_folders(t.parameters, folders),
            },
        }
        for t in TOOLS.values()
    ]


def _argument_problem(name: str, err: ValidationError) -> str:
    problems = []
    for item in err.errors():
        where = ".".join(str(p) for p in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    allowed = ", ".join(TOOLS[name].parameters["properties"])
    return f"{name} got bad arguments ({'; '.join(problems)}); it takes: {allowed}"


def run_tool(ctx: ToolContext, name: str, args: dict[str, Any], turn: str = "", chat: str = "") -> ToolOutput:
    """Run one primitive: its status-marked text (the health line included when there is one, and within a
    ``chat`` only the first time and when it changed: it cost tokens on every call, and a small model copied it
    into its arguments) and the data behind it."""
    tool = TOOLS.get(name)
    if tool is None:
        return _output(retry(f"there is no tool '{name}'; the tools are {', '.join(TOOLS)}"))
    if not isinstance(args, dict):
        first = next(iter(tool.parameters["properties"]))
        return _output(retry(f'{name} takes its arguments as an object, e.g. {{"{first}": ...}}'))
    if problem := unencodable_argument(args):
        return _output(retry(f"{name}: {problem}"))
    key = f"{name}:{json.dumps(args, sort_keys=True, ensure_ascii=False)}"
    if name == "search" and (earlier := ctx.earlier(turn, key)) is not None:
        body = "you already ran this exact search in this turn; its answer is above and repeating it finds nothing new"
        return ToolOutput(ToolResult(Status.DONE, body).render() + "\n" + earlier, Status.DONE)
    try:
        checked = ARGUMENTS[name].model_validate(args)
    except ValidationError as err:
        return _output(retry(_argument_problem(name, err)))
    try:
        result = tool.run(ctx, **checked.model_dump())
    except OSError as err:  # one a primitive did not report itself: still a status naming the path and the fix
        result = refused(err, ctx.settings.vault, name)
    health = health_line(ctx.reader())
    output = _output(result, ctx.health_to_say(chat, health) if chat else health)
    if name == "search":
        ctx.remember(turn, key, output.text)
    return output


def _output(result: ToolResult, health: str = "") -> ToolOutput:
    return ToolOutput(result.render(health), result.status, result.continuation, tuple(result.pages))


def call_tool(ctx: ToolContext, name: str, args: dict[str, Any], turn: str = "") -> str:
    """Run one primitive and render its status-marked text (``run_tool`` without the data)."""
    return run_tool(ctx, name, args, turn).text
