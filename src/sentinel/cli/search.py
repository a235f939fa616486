"""``sentinel search`` (the ladder from the command line) and ``sentinel embed`` (bring vectors up to date)."""

from __future__ import annotations

import shutil
from typing import Annotated

import typer
from rich.markup import escape

from sentinel.cli.common import (
    JsonOption,
    console,
    err_console,
    open_db,
    print_filling,
    print_json,
    progress_bar,
    with_search_settings,
)
from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.embed.factory import embedder_from_settings
from sentinel.errors import BadInput
from sentinel.index.sync import sync
from sentinel.paths import vectors_export_dir
from sentinel.search import embed_pending, filling, search
from sentinel.search.export import export_vectors
from sentinel.search.results import Hit, SearchResult
from sentinel.settings import Settings


def _labels(hit: Hit) -> str:
    return "".join(f"[{label}] " for label in hit.labels)


def _hit_json(hit: Hit, legs: bool) -> dict[str, object]:
    """A hit as a script gets it: the text the model would see (the summary line or the chunk, verbatim),
    the heading trail, labels; which legs found it only with ``--legs``."""
    data = hit.as_dict()
    if not legs:
        del data["legs"]
    return data


def _print_result(found: SearchResult, show_legs: bool) -> None:
    for note in found.notes:
        console.print(f"[yellow]\\[note][/] {escape(note)}")
    if not found.hits:
        console.print("no matches")
    for rank, hit in enumerate(found.hits, start=found.cursor + 1):
        legs = f"  [dim]({', '.join(hit.legs)})[/]" if show_legs else ""
        head = f"{rank}. {escape(_labels(hit))}[bold]{escape(hit.path)}[/]{legs}"
        if hit.rung == "body":
            console.print(f"{head}\n   [cyan]{escape(hit.trail)}[/]\n{escape(hit.text)}\n")
        else:
            console.print(f"{head}\n   {escape(hit.text)}")
    if show_legs:
        console.print(f"[dim]legs used: {', '.join(found.legs_used)}[/]")
    if found.next_cursor is not None:
        console.print(f"[dim]more: --cursor {found.next_cursor}[/]")


@with_search_settings
def search_command(
    query: Annotated[str, typer.Argument(help="Words or a question, in any of the vault's languages.")],
    rung: Annotated[str, typer.Option(help="summary: one line per page; body: verbatim passages.")] = "summary",
    cursor: Annotated[int, typer.Option(help="Start at this hit (the 'more' line gives it).")] = 0,
    limit: Annotated[int | None, typer.Option(help="Hits to show (default: settings search_hits).")] = None,
    legs: Annotated[bool, typer.Option("--legs", help="Show which retrieval legs found each hit.")] = False,
    as_json: JsonOption = False,
    *,
    settings: Settings,
) -> None:
    """Search the vault: exact page names first, then summaries (default) or body passages. Ranks only."""
    db = open_db(settings)
    synced = sync(settings, db)  # the vault wins: what changed since the last sync is indexed before ranking
    embedder: Embedder | None = None
    unavailable = ""
    try:
        embedder = embedder_from_settings(settings)
    except EmbedderUnavailable as err:
        unavailable = f"meaning search is unavailable ({err}); these hits match wording only"
    found = search(db, settings, embedder, query, rung=rung, cursor=cursor, limit=limit)  # type: ignore[arg-type]
    if unavailable:
        found.notes.insert(0, unavailable)
    if synced.refused:
        found.notes.insert(0, f"the index may be stale: {synced.refused}")
    filled = filling.of_index(db)  # the view the search just read: no second load
    if as_json:
        print_json(
            {
                "notes": found.notes,
                "legs_used": found.legs_used,
                "next_cursor": found.next_cursor,
                "hits": [_hit_json(h, legs) for h in found.hits],
                "filling": filled.as_dict(),
            }
        )
        return
    _print_result(found, legs)
    if filled.filling:
        print_filling(filled)


@with_search_settings
def embed_command(
    reembed: Annotated[
        bool, typer.Option("--reembed", help="Delete every vector and embed all again (after changing the model).")
    ] = False,
    as_json: JsonOption = False,
    *,
    settings: Settings,
) -> None:
    """Embed the chunks and page summaries that have no vector yet (only changed text is sent to the model)."""
    db = open_db(settings)
    embedder = embedder_from_settings(settings)
    if embedder is None:
        raise BadInput(
            "no embedder configured: pass --embed-model DIR (or set SENTINEL_EMBED_MODEL_DIR / SENTINEL_EMBEDDER_URL)"
        )
    with progress_bar("embedding", hidden=as_json) as bar:
        task = bar.add_task("embed", total=None)
        counts = embed_pending(
            db,
            embedder,
            reembed=reembed,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    if as_json:
        print_json(counts.as_dict())
        return
    console.print(
        f"embedded {counts.chunks} chunks and {counts.summaries} summaries  removed {counts.removed} unused vectors  "
        f"seconds {counts.seconds:.1f}"
    )
    for label in counts.truncated:
        err_console.print(
            f"[yellow]truncated[/] {escape(label)}: longer than the model reads; only its start was embedded"
        )


@with_search_settings
def export_vectors_command(
    with_model: Annotated[
        bool,
        typer.Option(
            "--with-model", help="Also copy the e5 model and its tokenizer, for a device that has no other copy."
        ),
    ] = False,
    as_json: JsonOption = False,
    *,
    settings: Settings,
) -> None:
    """Write the semantic summary leg into <vault>/.sentinel/vectors/ for the Obsidian plugin's offline search."""
    db = open_db(settings)
    folder = vectors_export_dir(settings)
    exported = export_vectors(db, folder)
    copied: list[str] = []
    if with_model:
        if settings.embed_model_dir is None:
            raise BadInput("--with-model copies the e5 model: pass --embed-model DIR (or set SENTINEL_EMBED_MODEL_DIR)")
        from sentinel.embed.onnx import locate_model_files  # the onnx extra: only when a model is copied

        files = locate_model_files(settings.embed_model_dir)
        for source, name in ((files.model, "model.onnx"), (files.tokenizer, "tokenizer.json")):
            shutil.copyfile(source, folder / name)
            copied.append(name)
    if as_json:
        print_json({"folder": str(folder), "count": exported.count, "bytes": exported.bytes, "copied": copied})
        return
    console.print(f"{exported.count} page vectors ({exported.bytes:,} bytes) in {escape(str(folder))}")
