"""``sentinel maintain``: one maintenance pass, in order: sync, analysis, concept pages, name resolution, embed;
``sentinel maintain log`` shows what a pass wrote and why, ``sentinel maintain revert <pass>`` undoes it.

Each role takes its own flags; giving none leaves the settings (environment, .env) as they are. API keys are
read from the environment variable a flag names, never passed on the command line (shell history, ps).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from sentinel.cli.common import (
    IndexOption,
    JsonOption,
    KindOption,
    VaultOption,
    console,
    load_settings,
    open_db,
    print_json,
)
from sentinel.embed.factory import embedder_from_settings
from sentinel.errors import NotFound
from sentinel.index.sync import sync_paths
from sentinel.maintain import ledger, trace
from sentinel.maintain.models import models_from_settings
from sentinel.maintain.run import run_pass
from sentinel.maintain.schedule import NOT_STARTED, schedule_started
from sentinel.providers.servers import server_kind
from sentinel.settings import ProviderSettings, Settings
from sentinel_pool.chat_first import serving_record


def _role(current: ProviderSettings, **flags: Any) -> ProviderSettings:
    given = {key: value for key, value in flags.items() if value is not None}
    if "kind" in given:
        server_kind(str(given["kind"]))  # raises UnknownKind, naming the known kinds
    return current.model_copy(update=given)


app = typer.Typer(no_args_is_help=False, help="The maintenance pass, its ledger, and undoing a pass.")


@app.callback(invoke_without_command=True)
def maintain(
    ctx: typer.Context,
    vault: VaultOption = None,
    index: IndexOption = None,
    minutes: Annotated[
        float | None, typer.Option(help="Time budget; the pass stops cleanly between pages (default: settings).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Count what the vault owes; call no model.")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Analyse failed pages again.")] = False,
    scheduled: Annotated[
        bool,
        typer.Option("--scheduled", help="As the nightly timer: skip on a new install until its first chat or pass."),
    ] = False,
    as_json: JsonOption = False,
    provider: KindOption = None,
    base_url: Annotated[str | None, typer.Option(help="Extraction server root (OpenAI kind: up to /v1).")] = None,
    model: Annotated[str | None, typer.Option(help="Extraction model (concepts, definitions, names).")] = None,
    num_ctx: Annotated[int | None, typer.Option(help="Extraction context window in tokens.")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Env variable holding the extraction API key.")] = None,
    summary_provider: KindOption = None,
    summary_base_url: Annotated[str | None, typer.Option(help="Summary server root.")] = None,
    summary_model: Annotated[str | None, typer.Option(help="Summary model: reads long pages whole.")] = None,
    summary_num_ctx: Annotated[int | None, typer.Option(help="Summary context window in tokens.")] = None,
    summary_api_key_env: Annotated[str | None, typer.Option(help="Env variable holding the summary key.")] = None,
    embed_model: Annotated[Path | None, typer.Option(help="multilingual-e5-small ONNX folder (in-process).")] = None,
) -> None:
    """Run the maintenance pass once (what the nightly worker runs)."""
    if ctx.invoked_subcommand is not None:
        return
    settings = load_settings(ctx, vault, index, embed_model_dir=embed_model)
    settings = settings.model_copy(
        update={
            "extraction": _role(
                settings.extraction,
                kind=provider,
                base_url=base_url,
                model=model,
                num_ctx=num_ctx,
                api_key_env=api_key_env,
            ),
            "summary": _role(
                settings.summary,
                kind=summary_provider,
                base_url=summary_base_url,
                model=summary_model,
                num_ctx=summary_num_ctx,
                api_key_env=summary_api_key_env,
            ),
        }
    )
    _run(
        settings,
        minutes if minutes is not None else settings.maintain_minutes,
        dry_run,
        retry_failed,
        as_json,
        scheduled,
    )


def _run(settings: Settings, minutes: float, dry_run: bool, retry_failed: bool, as_json: bool, scheduled: bool) -> None:
    db = open_db(settings)
    if scheduled and not schedule_started(db):
        console.print(NOT_STARTED, markup=False, highlight=False)
        return
    say = (
        (lambda line: None)
        if as_json
        else (lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True))
    )
    report = run_pass(  # another pass holding the index is a Conflict: exit 3 (sentinel.cli.common.said)
        settings,
        db,
        models=lambda: models_from_settings(settings),
        embedder=lambda: embedder_from_settings(settings),
        minutes=minutes,
        dry_run=dry_run,
        retry_failed=retry_failed,
        serving=serving_record(settings),
        say=say,
    )
    if as_json:
        print_json(report.as_dict())
    else:
        for line in report.summary_lines():
            say(line)
    if report.unreached:  # a scheduler (systemd, cron) must see a pass that never reached a model as failed
        raise typer.Exit(code=4)


@app.command("log")
def log(
    ctx: typer.Context,
    pass_id: Annotated[
        str | None, typer.Argument(help="A pass id; none: list the passes that wrote something.")
    ] = None,
    vault: VaultOption = None,
    index: IndexOption = None,
) -> None:
    """What a pass wrote, with the evidence that let each write through."""
    settings = load_settings(ctx, vault, index)
    if pass_id is None:
        known = ledger.passes(settings)
        console.print("\n".join(known) if known else "no pass has written anything yet", markup=False)
        return
    console.print(ledger.render(settings, pass_id), markup=False, highlight=False, soft_wrap=True)


@app.command("revert")
def revert(
    ctx: typer.Context,
    pass_id: Annotated[str, typer.Argument(help="The pass to undo (see `sentinel maintain log`).")],
    vault: VaultOption = None,
    index: IndexOption = None,
) -> None:
    """Undo one pass's writes as a unit; a page edited since the pass is left as it is and named."""
    settings = load_settings(ctx, vault, index)
    result = ledger.revert(settings, pass_id)
    sync_paths(settings, open_db(settings), sorted({*result.undone, *(path for path, _ in result.left)}))
    for path in result.undone:
        console.print(f"undone   {path}", markup=False)
    for path, why in result.left:
        console.print(f"left     {path}: {why}", markup=False)


def trace_command(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="A generated page (vault path) or a sentence one of them quotes.")],
    vault: VaultOption = None,
    index: IndexOption = None,
) -> None:
    """Walk a generated page's quotes to their sources and check each against the source as it is now."""
    settings = load_settings(ctx, vault, index)
    pages = [target] if (settings.vault / target).is_file() else trace.find_sentence(settings, target)
    if not pages:
        raise NotFound(f"{target!r} is neither a page of the vault nor a sentence a generated page quotes")
    broken = False
    for page in pages:
        found = trace.trace_page(settings, page)
        broken |= found.broken
        console.print("\n".join(trace.lines(found)), markup=False, highlight=False, soft_wrap=True)
    if broken:
        raise typer.Exit(1)
