"""What every command shares: the settings from flags and environment, JSON output, clear failures."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from sentinel.index.db import IndexUnavailable, open_index
from sentinel.settings import Settings
from sentinel.vault.walk import VaultMissing, check_vault

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


def fail(message: str, code: int = 2) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


def load_settings(vault: Path | None = None, index: Path | None = None, **overrides: Any) -> Settings:
    """Settings from the environment and .env, with command-line flags taking precedence."""
    values: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    if vault is not None:
        values["vault"] = vault
    if index is not None:
        values["index_path"] = index
    settings = Settings(**values)
    try:
        check_vault(settings.vault)
    except VaultMissing as err:
        fail(str(err))
    return settings


def open_db(settings: Settings) -> sqlite3.Connection:
    try:
        return open_index(settings)
    except IndexUnavailable as err:
        fail(str(err))


def print_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))
