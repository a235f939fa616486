"""The stdio door: a desktop agent starts ``sentinel mcp`` and talks to it over its stdin and stdout."""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from sentinel.keys import Scope
from sentinel.mcp.server import build_server
from sentinel.tools.context import ToolContext


def serve_stdio(ctx: ToolContext, scope: Scope) -> None:
    """Serve until the agent closes stdin. The scope is fixed for the process: read unless started with --write."""
    server = build_server(ctx, lambda: scope)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
