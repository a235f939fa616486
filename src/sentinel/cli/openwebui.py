"""``sentinel openwebui``: register Sentinel's tool and model in a running Open WebUI, check that chat works, and
warm the model server's prompt cache with the Sentinel chat's prefix."""

from __future__ import annotations

from typing import Annotated

import typer

from sentinel.cli.common import settings_of
from sentinel.keys import Scope, create_key
from sentinel.openwebui import base_model_of, setup
from sentinel.openwebui_check import self_check
from sentinel.openwebui_warm import warm
from sentinel.paths import keys_path

app = typer.Typer(no_args_is_help=True, help="Connect Sentinel to Open WebUI.")


@app.command("setup")
def setup_command(
    ctx: typer.Context,
    url: Annotated[str | None, typer.Option(help="Open WebUI root (env SENTINEL_OPENWEBUI__URL).")] = None,
    base_model: Annotated[
        str | None, typer.Option(help="Model to wrap, as Open WebUI lists it (env SENTINEL_OPENWEBUI__BASE_MODEL).")
    ] = None,
    tool_api_url: Annotated[
        str | None, typer.Option(help="Tool API as Open WebUI reaches it (env SENTINEL_OPENWEBUI__TOOL_API_URL).")
    ] = None,
    probe: Annotated[
        bool, typer.Option("--probe", help="Ask the model the tool-calling probe again, not its recorded answer.")
    ] = False,
) -> None:
    """Create or update the Sentinel tool, its valves and the Sentinel model. Safe to run again."""
    settings = settings_of(ctx)
    overrides = {"url": url, "base_model": base_model, "tool_api_url": tool_api_url}
    owui = settings.openwebui.model_copy(update={k: v for k, v in overrides.items() if v is not None})
    settings = settings.model_copy(update={"openwebui": owui})

    def new_write_key() -> str:
        return create_key(keys_path(settings), Scope.WRITE, label="open-webui tool")[1]

    report = setup(settings, create_key=new_write_key, fresh_probe=probe)
    for line in report.lines(settings.openwebui):
        typer.echo(line)  # plain lines, never re-wrapped: logs and scripts read them


@app.command("check")
def check_command(
    ctx: typer.Context,
    timeout: Annotated[float, typer.Option(help="Seconds the answer may take.")] = 600.0,
) -> None:
    """Ask the Sentinel model a real question through Open WebUI; exit 1 unless it searched and found the page."""
    settings = settings_of(ctx)
    result = self_check(settings, timeout_s=timeout)
    model = f"{settings.openwebui.model_name} on {base_model_of(settings)}"
    typer.echo(result.line(model))
    if not result.ok:
        raise typer.Exit(1)


@app.command("warm")
def warm_command(
    ctx: typer.Context,
    url: Annotated[
        str | None, typer.Option(help="OpenAI base of Open WebUI's chat connection (env SENTINEL_OPENWEBUI__WARM_URL).")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(help="Seconds to wait for an answer (env SENTINEL_OPENWEBUI__WARM_TIMEOUT_S).")
    ] = None,
) -> None:
    """Fill the model server's prompt cache with the Sentinel chat's prefix. One line; exits 0 even when it could
    not (a start must never fail on it: the first question then prefills the prefix itself)."""
    typer.echo(warm(settings_of(ctx), url=url, timeout_s=timeout).line)
