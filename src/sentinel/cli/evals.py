"""``sentinel eval``: run an answer eval suite end to end (search, then the conversation model answers)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from sentinel.cli.common import JsonOption, KindOption, console, open_db, print_json, with_search_settings
from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.embed.factory import embedder_from_settings
from sentinel.evals import CaseResult, load_suite, run_suite
from sentinel.providers import provider_for
from sentinel.settings import Settings


def _reasons(result: CaseResult) -> str:
    parts = [f"error: {result.error}"] if result.error else []
    parts += [f"fact missing: {f}" for f in result.missing_facts]
    parts += [f"source not retrieved: {s}" for s in result.missing_sources]
    parts += [f"forbidden: {f}" for f in result.forbidden]
    return "; ".join(parts)


@with_search_settings
def eval_command(
    suite: Annotated[str, typer.Argument(help="A built-in suite name or a suite YAML file.")] = "obsidian-help",
    kind: KindOption = None,
    base_url: Annotated[str | None, typer.Option(help="Conversation server root (OpenAI kind: up to /v1).")] = None,
    model: Annotated[str | None, typer.Option(help="Conversation model that answers.")] = None,
    as_json: JsonOption = False,
    *,
    settings: Settings,
) -> None:
    """Answer each case's question from search hits with the conversation model; report pass/fail per case.

    Exits 1 when any case fails."""
    role = {k: v for k, v in {"kind": kind, "base_url": base_url, "model": model}.items() if v is not None}
    settings = settings.model_copy(update={"conversation": settings.conversation.model_copy(update=role)})
    cases = load_suite(suite)
    provider = provider_for(settings.conversation, "conversation")
    embedder: Embedder | None = None
    try:
        embedder = embedder_from_settings(settings)
    except EmbedderUnavailable as err:
        console.print(f"[yellow]\\[note][/] meaning search is unavailable ({escape(str(err))}): wording only")
    db = open_db(settings)

    def show(result: CaseResult) -> None:
        if not as_json:
            mark = "[green]pass[/]" if result.passed else "[red]FAIL[/]"
            console.print(f"{mark} {escape(result.id)} ({result.seconds:.1f}s)")

    results = run_suite(db, settings, embedder, provider, cases, show)
    passed = sum(r.passed for r in results)
    if as_json:
        print_json({"suite": cases.name, "passed": passed, "cases": [r.as_dict() for r in results]})
    else:
        table = Table("case", "result", "why not")
        for r in results:
            table.add_row(r.id, "pass" if r.passed else "FAIL", escape(_reasons(r)))
        console.print(table)
        console.print(f"{cases.name}: {passed}/{len(results)} cases pass")
    if passed < len(results):
        raise typer.Exit(1)
