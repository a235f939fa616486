"""What every command shares: the settings from flags and environment, JSON output, clear failures."""

from __future__ import annotations

import functools
import inspect
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress_bar import ProgressBar
from rich.table import Table

from sentinel.errors import BadInput, Conflict, NotFound, Refused, SentinelError, Unavailable, described, kind_of
from sentinel.index.db import open_index
from sentinel.providers.servers import kind_names
from sentinel.settings import Settings
from sentinel.vault.walk import check_vault

if TYPE_CHECKING:  # the search package (numpy and all) is loaded only by the commands that search
    from sentinel.search.filling import Filling

console = Console()
err_console = Console(stderr=True, soft_wrap=True)

VaultOption = Annotated[
    Path | None, typer.Option("--vault", help="The vault folder (env SENTINEL_VAULT).", show_default=False)
]
IndexOption = Annotated[
    Path | None,
    typer.Option("--index", help="The index file (env SENTINEL_INDEX_PATH; default <vault>/.sentinel/index.db)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]
# --provider / --kind: a model server kind, as registered in sentinel.providers.servers (the help lists those)
KindOption = Annotated[str | None, typer.Option(help=f"The model server's kind: {' or '.join(kind_names())}.")]
EmbedModelOption = Annotated[
    Path | None,
    typer.Option("--embed-model", help="multilingual-e5-small ONNX folder (env SENTINEL_EMBED_MODEL_DIR)."),
]
EmbedderUrlOption = Annotated[
    str | None, typer.Option("--embedder-url", help="Embedding service root (env SENTINEL_EMBEDDER_URL).")
]
# The options of every command that searches the vault (search, embed, eval, research), declared once: the
# command takes ``settings`` built from them (see ``with_search_settings``).
_SEARCH_OPTIONS = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=option)
    for name, option in (
        ("vault", VaultOption),
        ("index", IndexOption),
        ("embed_model", EmbedModelOption),
        ("embedder_url", EmbedderUrlOption),
    )
]


# typer hands a parameter so annotated the run's context, where the root put the settings (``settings_of``)
_CONTEXT = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)


# The CLI's one translation of the product's failures: 2 the caller can fix or was refused, 3 the state was not
# the one assumed (a pass runs already), 1 something it needs is down.
EXIT_CODES: dict[type[SentinelError], int] = {BadInput: 2, NotFound: 2, Refused: 2, Conflict: 3, Unavailable: 1}


def said(error: SentinelError) -> int:
    """Say ``error`` as every command says an error, and the exit code its kind has. A command raises what went
    wrong; the root says it (``sentinel.cli._Translated``), so no command chooses an exit code for a failure."""
    err_console.print(f"[bold red]error:[/] {escape(described(error))}")
    kind = kind_of(error)
    return EXIT_CODES[kind] if kind is not None else 1


class ExtraMissing(BadInput):
    """A command needs a part of Sentinel installed as an extra; the caller installs it (exit 2, as for every
    input the caller can fix)."""

    def __init__(self, command: str, missing: ImportError, extra: str) -> None:
        super().__init__(
            f"{command} needs the {extra} extra ({missing.name or missing} is missing): pip install 'sentinel[{extra}]'"
        )


def settings_of(ctx: typer.Context) -> Settings:
    """The settings the CLI root read from the environment and .env for this run (``sentinel.cli._configure``);
    every command starts from them, never from a ``Settings()`` of its own."""
    read = ctx.find_root().obj
    settings = read() if callable(read) else None
    if not isinstance(settings, Settings):  # a sub-app invoked without the root: a wiring mistake, not the user's
        raise RuntimeError("a sentinel command ran without the root app's settings: invoke sentinel.cli.app")
    return settings


def load_settings(
    ctx: typer.Context, vault: Path | None = None, index: Path | None = None, **overrides: Any
) -> Settings:
    """The run's settings (``settings_of``) with the command-line flags given taking precedence."""
    values: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    if vault is not None:
        values["vault"] = vault
    if index is not None:
        values["index_path"] = index
    settings = settings_of(ctx).model_copy(update=values)
    check_vault(settings.vault)  # raises VaultMissing: said at the root
    return settings


def with_search_settings(command: Callable[..., None]) -> Callable[..., None]:
    """A command taking ``settings: Settings`` becomes one taking --vault, --index, --embed-model and
    --embedder-url, which override the run's settings (``load_settings``). Typer has no shared option groups;
    it reads a command's options from its signature, so the wrapper's signature carries them."""
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "settings"]

    @functools.wraps(command)
    def run(
        *,
        ctx: typer.Context,
        vault: Path | None,
        index: Path | None,
        embed_model: Path | None,
        embedder_url: str | None,
        **given: Any,
    ) -> None:
        settings = load_settings(ctx, vault, index, embed_model_dir=embed_model, embedder_url=embedder_url)
        command(settings=settings, **given)

    run.__signature__ = inspect.Signature([*own, _CONTEXT, *_SEARCH_OPTIONS])  # type: ignore[attr-defined]
    return run


def progress_bar(label: str, hidden: bool) -> Progress:
    """How a long command shows how far it is: one bar on the console, gone when done, none with --json."""
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    return Progress(*columns, console=console, transient=True, disable=hidden)


def print_filling(filled: Filling) -> None:
    """Each search leg with a bar of how many pages it can find by meaning (the lexical leg is always whole)."""
    table = Table("leg", "", "pages", box=None, title="search legs", title_justify="left")
    table.add_row("lexical", ProgressBar(total=1, completed=1, width=30), f"{filled.pages:,} (whole)")
    for leg in filled.legs:
        bar = ProgressBar(total=max(leg.total, 1), completed=leg.done if leg.total else 1, width=30)
        state = "whole" if leg.complete else "filling"
        table.add_row(leg.name, bar, f"{leg.done:,} of {leg.total:,} ({leg.percent()}%, {state})")
    console.print(table)


def open_db(settings: Settings) -> sqlite3.Connection:
    return open_index(settings)  # raises IndexUnavailable: said at the root


def print_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))
