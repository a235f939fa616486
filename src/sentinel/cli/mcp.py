"""``sentinel mcp``: the seven primitives over MCP's stdio transport, for desktop agents (Claude, Codex, Cursor)."""

from __future__ import annotations

from typing import Annotated

import typer

from sentinel.cli.common import ExtraMissing, IndexOption, VaultOption, err_console, load_settings
from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.embed.factory import embedder_from_settings
from sentinel.index.sync import sync
from sentinel.keys import Scope
from sentinel.search.scope import limited_to
from sentinel.tools.context import ToolContext


def mcp_command(
    cli: typer.Context,
    vault: VaultOption = None,
    index: IndexOption = None,
    write: Annotated[
        bool, typer.Option("--write", help="Also offer write, relocate and remove (default: read-only).")
    ] = False,
    keep_out: Annotated[
        list[str] | None,
        typer.Option("--keep-out", help="A scope this agent never reaches, even when it asks (repeatable): personal."),
    ] = None,
) -> None:
    """Serve the vault to an agent over stdio (MCP). Read-only unless --write; stdout carries the protocol."""
    try:
        from sentinel.mcp.stdio import serve_stdio
    except ImportError as err:
        raise ExtraMissing("sentinel mcp", err, "mcp") from err
    settings = load_settings(cli, vault, index)
    embedder: Embedder | None = None
    try:
        embedder = embedder_from_settings(settings)
    except EmbedderUnavailable as err:  # stdout is the protocol: the warning goes to stderr, the agent's log
        err_console.print(f"[yellow]warning:[/] meaning search is unavailable ({err}); serving wording only")
    ctx = ToolContext(settings=settings, embedder=embedder)
    with ctx.write_lock:
        sync(settings, ctx.writer())
    with limited_to(tuple(keep_out or ())):
        serve_stdio(ctx, Scope.WRITE if write else Scope.READ)
