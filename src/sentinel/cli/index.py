"""``sentinel index``: sync, rebuild and inspect the derived index."""

from __future__ import annotations

import sqlite3

import typer
from rich.table import Table

from sentinel.cli.common import (
    IndexOption,
    JsonOption,
    VaultOption,
    console,
    load_settings,
    open_db,
    print_filling,
    print_json,
    progress_bar,
)
from sentinel.index import queries
from sentinel.index.db import IndexUnavailable
from sentinel.index.sync import SyncReport, sync
from sentinel.paths import index_path
from sentinel.settings import Settings

app = typer.Typer(no_args_is_help=True, help="Build and inspect the index (derived from the vault, rebuildable).")


def _run(settings: Settings, as_json: bool, rebuild: bool) -> SyncReport:
    db = open_db(settings)
    try:
        with progress_bar("reading pages", hidden=as_json) as bar:
            task = bar.add_task("read", total=None)
            report = sync(
                settings,
                db,
                rebuild=rebuild,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
    except sqlite3.Error as err:  # a full disk or a read-only index file: one line, not a traceback
        raise IndexUnavailable(
            f"the index at {index_path(settings)} could not be written ({err}); it was left as it was and the vault "
            "is untouched: free space on its disk (or make it writable), then run `sentinel index sync` again"
        ) from err
    if as_json:
        print_json(report.as_dict())
        return report
    console.print(
        f"added {report.added}  updated {report.updated}  removed {report.removed}  unchanged {report.unchanged}  "
        f"links re-resolved {report.links_changed}  seconds {report.seconds:.2f}"
    )
    for path, problem in report.problems:
        console.print(f"[yellow]problem[/] {path}: {problem}")
    if report.refused:
        console.print(f"[bold red]withheld:[/] {report.refused}")
    return report


@app.command("sync")
def sync_command(
    ctx: typer.Context, vault: VaultOption = None, index: IndexOption = None, as_json: JsonOption = False
) -> None:
    """Re-read changed pages, drop deleted ones, resolve links. Safe to run any time."""
    report = _run(load_settings(ctx, vault, index), as_json, rebuild=False)
    if report.refused:
        raise typer.Exit(3)


@app.command("rebuild")
def rebuild_command(
    ctx: typer.Context, vault: VaultOption = None, index: IndexOption = None, as_json: JsonOption = False
) -> None:
    """Re-read every page and accept any deletions (the explicit way to take an emptied vault)."""
    _run(load_settings(ctx, vault, index), as_json, rebuild=True)


@app.command("stats")
def stats_command(
    ctx: typer.Context, vault: VaultOption = None, index: IndexOption = None, as_json: JsonOption = False
) -> None:
    """Counts of pages, links, unresolved names, chunks, and pages with problems; how far each search leg has
    filled (pages findable by meaning, while vectors are still being embedded)."""
    from sentinel.search import filling  # loads the search view: only this command of the group needs it

    db = open_db(load_settings(ctx, vault, index))
    stats = queries.stats(db)
    problems = queries.problems(db)
    filled = filling.of_index(db)
    if as_json:
        print_json({**stats, "problems": [{"path": p, "problem": r} for p, r in problems], "search": filled.as_dict()})
        return
    table = Table("what", "count")
    for key, value in stats.items():
        table.add_row(key, ", ".join(f"{k} {v}" for k, v in value.items()) if isinstance(value, dict) else str(value))
    console.print(table)
    print_filling(filled)
    for path, problem in problems:
        console.print(f"[yellow]problem[/] {path}: {problem}")


@app.command("unresolved")
def unresolved_command(
    ctx: typer.Context,
    vault: VaultOption = None,
    index: IndexOption = None,
    as_json: JsonOption = False,
    limit: int = typer.Option(50, help="How many names to show."),
) -> None:
    """The growth queue: names pages link to that no page answers to, by how many pages reach for them."""
    rows = queries.unresolved(open_db(load_settings(ctx, vault, index)), limit=limit)
    if as_json:
        print_json([{"name": r.name, "pages": r.pages, "links": r.links} for r in rows])
        return
    table = Table("name", "pages", "links")
    for r in rows:
        table.add_row(r.name, str(r.pages), str(r.links))
    console.print(table)
