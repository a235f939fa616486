"""The ``sentinel`` command line: one typer app, one module per command group."""

from __future__ import annotations

import functools
from typing import Any

import typer
from typer.core import TyperGroup

from sentinel.cli import ask, chat, deploy, index, keys, maintain, openwebui
from sentinel.cli import evals as eval_cli
from sentinel.cli import mcp as mcp_cli
from sentinel.cli import pool as pool_cli
from sentinel.cli import research as research_cli
from sentinel.cli import search as search_cli
from sentinel.cli.common import said
from sentinel.errors import SentinelError
from sentinel.settings import Settings


class _Translated(TyperGroup):
    """The CLI's one translation of the product's failures: a ``SentinelError`` no command words itself is said
    as every error is, and its kind decides the exit code (``sentinel.cli.common.said``)."""

    def invoke(self, ctx: Any) -> Any:  # typer vendors click: its Context is typer._click.core.Context
        try:
            return super().invoke(ctx)
        except SentinelError as error:
            raise typer.Exit(said(error)) from error


app = typer.Typer(
    cls=_Translated, no_args_is_help=True, add_completion=False, help="Sentinel: a local model in front of your vault."
)


@app.callback()
def _configure(ctx: typer.Context) -> None:
    # The command line's one door to configuration: the environment and .env are read once per run, into the
    # context, where commands take them (cli.common.settings_of), their flags overriding (load_settings). Read on
    # first use: the callback also runs before a command's --help, which must not need valid settings.
    ctx.obj = functools.cache(Settings)


app.add_typer(index.app, name="index")
app.add_typer(keys.app, name="keys")
app.add_typer(maintain.app, name="maintain")
app.command("trace")(maintain.trace_command)
app.add_typer(openwebui.app, name="openwebui")
app.command("chat")(chat.chat)
app.command("ask")(ask.ask_command)
app.add_typer(pool_cli.app, name="pool")
app.command("search")(search_cli.search_command)
app.command("embed")(search_cli.embed_command)
app.command("export-vectors")(search_cli.export_vectors_command)
app.command("eval")(eval_cli.eval_command)
app.add_typer(deploy.app, name="deploy")
app.command("mcp")(mcp_cli.mcp_command)
app.command("research")(research_cli.research_command)


def main() -> None:
    app()
