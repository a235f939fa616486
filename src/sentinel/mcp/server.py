"""The seven primitives as an MCP server: one implementation of each primitive, one more door.

Tools, their descriptions and their argument schemas come from ``sentinel.tools.registry`` (the table Open WebUI's
tool and the HTTP routes are built from), so an agent over MCP reads exactly what the chat model reads. What a
caller may see and run is decided by its scope, before anything runs: a read scope is never shown a write tool,
and a write tool called anyway is refused without touching the vault.

Resources and prompts help an agent use the seven without adding an eighth: the health line and the folder roles
are resources, the search ladder (the system prompt) is a prompt.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from sentinel import __version__
from sentinel.errors import SentinelError, described
from sentinel.keys import Scope
from sentinel.maintain.health import health_line
from sentinel.mcp import ask
from sentinel.prompts import read_prompt
from sentinel.settings import Folders, Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import Status, markers, stop
from sentinel.tools.registry import TOOLS, Tool, ToolOutput, in_folders, run_tool

Context = ServerRequestContext[Any]
Paging = types.PaginatedRequestParams | None

HEALTH_URI = "sentinel://health"
FOLDERS_URI = "sentinel://folders"
LADDER_PROMPT = "ladder"

# Who is calling, asked per request: the stdio door fixes it at start, the HTTP door reads the caller's key.
ScopeOf = Callable[[], Scope]
# Told of every call that ran: (tool, arguments, the text returned, seconds, the pages it found); the API logs
# it as its routes do.
Observer = Callable[[str, dict[str, Any], str, float, tuple[str, ...]], None]

INSTRUCTIONS = (
    "Sentinel: a markdown vault behind seven tools. Search first (rung='summary'), open pages with read, follow "
    f"links with graph, enumerate with listing. Every result opens with a status: {markers()}; on "
    f"{Status.DONE} or {Status.STOP} do not repeat the call. The prompt 'ladder' explains it."
)


def ladder_text(settings: Settings) -> str:
    """The ``ladder`` prompt: the system prompt Open WebUI's Sentinel model gets (without research, which MCP
    does not offer)."""
    return read_prompt(
        settings.openwebui.system_prompt_file, "SENTINEL_OPENWEBUI__SYSTEM_PROMPT_FILE", settings.folders
    )


def visible(scope: Scope) -> list[Tool]:
    """The tools a caller of this scope may see and run."""
    return [tool for tool in TOOLS.values() if scope is Scope.WRITE or not tool.writes]


def mcp_tool(tool: Tool, folders: Folders) -> types.Tool:
    """The tool as MCP lists it. Hints are sent only where they differ from the protocol's defaults (not read-only,
    destructive, not idempotent, open world): a client reads the same meaning, and the list costs fewer tokens."""
    hints = types.ToolAnnotations(open_world_hint=False)  # the vault is a closed world
    if not tool.writes:
        hints.read_only_hint = True  # destructive and idempotent hints only mean something for a writing tool
    else:
        hints.destructive_hint = False if not tool.destructive else None
        hints.idempotent_hint = True if tool.idempotent else None
    return types.Tool(
        name=tool.name,
        description=folders.in_text(tool.description),
        input_schema=in_folders(tool.parameters, folders),
        annotations=hints,
    )


def _result(output: ToolOutput) -> types.CallToolResult:
    """The status-marked text the model reads; for a cut answer, also its continuation as structured content.

    Only then: the status is the text's first word already, and a client such as Open WebUI hands the model any
    structured content that differs from the text as JSON beside it, which would push the status off the front.
    """
    result = types.CallToolResult(content=[types.TextContent(text=output.text)])
    if output.continuation is not None:
        then = output.continuation
        result.structured_content = {
            "status": str(output.status),
            "continuation": {"tool": then.tool, "arguments": then.arguments},
        }
    return result


def _refused(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def folder_roles(folders: Folders) -> str:
    """The vault's folders as this installation names them, each with what it means."""
    lines = ["Folders of this vault (only *.md is read; hidden folders are skipped):"]
    for role, info in Folders.model_fields.items():
        lines.append(f"- {getattr(folders, role)}/ ({role}): {info.description}")
    lines.append("- anything else: treated like notes")
    return "\n".join(lines)


def build_server(ctx: ToolContext, scope_of: ScopeOf, observe: Observer | None = None) -> Server[Any]:
    """An MCP server over ``ctx``; ``scope_of`` tells, per request, what the caller may do."""

    answers = ask.conversation_model(ctx)

    async def list_tools(_: Context, __: Paging) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[mcp_tool(tool, ctx.settings.folders) for tool in visible(scope_of())] + [ask.TOOL]
        )

    async def call_tool(context: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            return await run_call(context, params)
        except SentinelError as error:  # MCP's one translation of the product's failures: an error result
            return _refused(described(error))

    async def run_call(_: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == ask.NAME:
            arguments = dict(params.arguments or {})
            return await anyio.to_thread.run_sync(lambda: ask.run_ask(ctx, answers, arguments))
        tool = TOOLS.get(params.name)
        if tool is not None and tool not in visible(scope_of()):
            return _refused(stop(f"{tool.name} needs a write key; this connection may only read").render())
        arguments = dict(params.arguments or {})
        started = time.perf_counter()
        # the primitives are synchronous (SQLite, files): off the event loop, as the HTTP routes run them
        output = await anyio.to_thread.run_sync(lambda: run_tool(ctx, params.name, arguments))
        if observe is not None:
            observe(params.name, arguments, output.text, time.perf_counter() - started, output.pages)
        return _result(output)

    async def list_resources(_: Context, __: Paging) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name="health",
                    uri=HEALTH_URI,
                    description="What the vault owes: pages awaiting analysis, failures, concepts wanting a page.",
                    mime_type="text/plain",
                ),
                types.Resource(
                    name="folders",
                    uri=FOLDERS_URI,
                    description="The vault's folders and what each one means (who wrote it, what may change it).",
                    mime_type="text/plain",
                ),
            ]
        )

    async def read_resource(_: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == HEALTH_URI:
            text = await anyio.to_thread.run_sync(lambda: health_line(ctx.reader()) or "nothing to report")
        elif uri == FOLDERS_URI:
            text = folder_roles(ctx.settings.folders)
        else:
            raise ValueError(f"no resource {uri}; there are {HEALTH_URI} and {FOLDERS_URI}")
        contents = types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)
        return types.ReadResourceResult(contents=[contents])

    async def list_prompts(_: Context, __: Paging) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=LADDER_PROMPT,
                    description="How to use the seven tools: the search ladder, the status markers, when to write.",
                )
            ]
        )

    async def get_prompt(_: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != LADDER_PROMPT:
            raise ValueError(f"no prompt {params.name}; there is '{LADDER_PROMPT}'")
        text = ladder_text(ctx.settings)
        return types.GetPromptResult(
            description="Sentinel's system prompt",
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )

    return Server(
        "sentinel",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
