"""``sentinel research "question"``: web research written as a source record into the vault's sources folder."""

from __future__ import annotations

from typing import Annotated

import typer
from pydantic import ValidationError
from rich.markup import escape

from sentinel.cli.common import JsonOption, console, print_json, with_search_settings
from sentinel.errors import BadInput
from sentinel.research.run import filter_model, prepare, report_text, research
from sentinel.settings import ResearchSettings, Settings


@with_search_settings
def research_command(
    question: Annotated[str, typer.Argument(help="The question, as you would ask it.")],
    backend: Annotated[
        str | None, typer.Option(help="searxng or brave (env SENTINEL_RESEARCH__BACKEND).", show_default=False)
    ] = None,
    model_filter: Annotated[
        bool | None,
        typer.Option("--model-filter/--no-model-filter", help="Let the extraction model leave passages out."),
    ] = None,
    as_json: JsonOption = False,
    *,
    settings: Settings,
) -> None:
    """Search the web, fetch the top results, and append the passages that answer to sources/<question>.md."""
    changes = {"backend": backend, "model_filter": model_filter}
    given = {k: v for k, v in changes.items() if v is not None}
    try:
        settings.research = ResearchSettings.model_validate({**settings.research.model_dump(), **given})
    except ValidationError as err:
        raise BadInput(f"--backend must be searxng or brave, got {backend!r} ({err.error_count()} problem)") from err
    report = research(question, settings, embedder=prepare(settings), provider=filter_model(settings))
    if as_json:
        print_json(
            {
                "record": report.relpath,
                "created": report.created,
                "added": report.added,
                "repeated": report.repeated,
                "results": report.results,
                "used": report.used,
                "not_used": [{"url": u.url, "reason": u.reason} for u in report.unusable],
                "seconds": round(report.seconds, 2),
            }
        )
        return
    console.print(escape(report_text(report)))
    for page in report.unusable:
        console.print(f"  [dim]not used[/] {escape(page.url)}: {escape(page.reason)}")
