"""``sentinel keys``: create, list and revoke the tool API's keys (stored hashed)."""

from __future__ import annotations

import typer
from rich.table import Table

from sentinel.cli.common import IndexOption, JsonOption, VaultOption, console, load_settings, print_json
from sentinel.keys import Scope, create_key, load_keys, revoke_key
from sentinel.paths import keys_path

app = typer.Typer(
    no_args_is_help=True,
    help="API keys for the tool service: read (read, search, listing, graph) or write (all seven + capture).",
)


@app.command("create")
def create(
    ctx: typer.Context,
    scope: Scope = typer.Option(Scope.READ, help="read or write"),
    label: str = typer.Option("", help="What the key is for, e.g. openwebui."),
    keep_out: list[str] = typer.Option(
        [], "--keep-out", help="A scope this key never reaches, even when a query asks (repeatable): personal."
    ),
    vault: VaultOption = None,
    index: IndexOption = None,
    as_json: JsonOption = False,
) -> None:
    """Make a key; it is printed once, only its hash is kept."""
    path = keys_path(load_settings(ctx, vault, index))
    record, plain = create_key(path, scope, label, tuple(keep_out))
    if as_json:
        print_json(
            {"id": record.id, "scope": record.scope.value, "key": plain, "file": str(path), "kept_out": record.kept_out}
        )
    else:
        console.print(f"{record.scope.value} key {record.id} (stored hashed in {path}); copy it now:")
        typer.echo(plain)


@app.command("list")
def list_keys(
    ctx: typer.Context, vault: VaultOption = None, index: IndexOption = None, as_json: JsonOption = False
) -> None:
    """The keys on file: id, scope, label, created, revoked."""
    records = load_keys(keys_path(load_settings(ctx, vault, index)))
    if as_json:
        print_json(
            [
                {"id": r.id, "scope": r.scope.value, "label": r.label, "created": r.created, "revoked": r.revoked}
                for r in records
            ]
        )
        return
    table = Table("id", "scope", "label", "created", "revoked")
    for r in records:
        table.add_row(r.id, r.scope.value, r.label, r.created, "yes" if r.revoked else "")
    console.print(table)


@app.command("revoke")
def revoke(ctx: typer.Context, key_id: str, vault: VaultOption = None, index: IndexOption = None) -> None:
    """Revoke a key by its id (see `sentinel keys list`)."""
    revoked = revoke_key(keys_path(load_settings(ctx, vault, index)), key_id)
    if not revoked:
        console.print(f"no active key with id {key_id}")
        raise typer.Exit(1)
    console.print(f"revoked {key_id}")
