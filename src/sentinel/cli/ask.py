"""``sentinel ask QUESTION``: one question answered from the vault by the answer pipeline (``sentinel.answer``).

Code runs the ladder, the model writes sentences over the passages found, and the support gate checks each
one; what is printed is the answer and its citations (``--json``: the same as data, as ``POST /v1/ask`` gives).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.cli.chat import NoModelAnswered, conversation_role, settings_embedder
from sentinel.cli.common import IndexOption, KindOption, VaultOption, console, load_settings, print_json
from sentinel.index.sync import sync
from sentinel.providers import ProviderError, provider_for
from sentinel.providers.base import ChatProvider
from sentinel.settings import ProviderSettings
from sentinel.tools.context import Origin, ToolContext


def reachable_provider(role: ProviderSettings) -> ChatProvider:
    """The conversation model, once it has answered one token; a clear error (exit 2) naming where it looked."""
    provider = provider_for(role, "conversation")
    try:
        provider.chat([{"role": "user", "content": "ok"}], max_tokens=1)
    except ProviderError as error:
        raise NoModelAnswered(
            f"no model answered ({role.kind}, model '{role.model}'): {error} To start one: `ollama serve` and "
            "`ollama pull <model>`, or `make up` (the stack's llama.cpp server)."
        ) from error
    return provider


def _print(answer: Answer) -> None:
    console.print(escape(answer.answer))
    if answer.citations:
        console.print("\n[bold]Sources[/]")
        for number, citation in enumerate(answer.citations, start=1):
            where = citation.path + (f" > {citation.heading}" if citation.heading else "")
            console.print(f"  [{number}] {escape(where)}  [dim]{escape(citation.url)}[/]")
    for note in answer.notes:
        console.print(f"[dim]note: {escape(note)}[/]")


def ask_command(
    cli: typer.Context,
    question: Annotated[str, typer.Argument(help="A question about the vault, or 'save this: …'.")],
    vault: VaultOption = None,
    index: IndexOption = None,
    model: Annotated[str | None, typer.Option(help="Conversation model, as the server names it.")] = None,
    num_ctx: Annotated[int | None, typer.Option(min=1, help="Context window in tokens.")] = None,
    provider: KindOption = None,
    base_url: Annotated[str | None, typer.Option(help="Server root (openai: up to /v1).")] = None,
    embed_model: Annotated[
        Path | None, typer.Option(help="multilingual-e5-small ONNX folder; without it search is lexical-only.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")] = False,
) -> None:
    """Answer one question from the vault, with citations checked against the passages they cite."""
    settings = load_settings(cli, vault, index, embed_model_dir=embed_model)
    given = {"kind": provider, "model": model, "num_ctx": num_ctx, "base_url": base_url}
    settings = conversation_role(settings, **given)
    chat_model = reachable_provider(settings.conversation)
    ctx = ToolContext(settings=settings, embedder=settings_embedder(settings), origin=Origin.USER)
    with ctx.write_lock:
        sync(settings, ctx.writer())
    answer = answer_turn(ctx, chat_model, Turn([{"role": "user", "content": question}]), settings.conversation.model)
    ctx.close()
    if as_json:
        data = answer.as_dict()
        print_json({key: data[key] for key in ("answer", "citations", "intent", "answered", "dropped", "model")})
    else:
        _print(answer)
