"""``sentinel chat``: talk to the vault straight through the model, with the harness in view.

The REPL is thin: it reads lines, hands questions to ``ChatSession.ask`` and commands to ``run_command``, and
prints. Everything it shows comes from ``sentinel.chat``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from sentinel.chat.accounting import measure_schema_cost
from sentinel.chat.commands import parse_command, run_command
from sentinel.chat.render import budget_warning, lexical_only_warning, step_line, turn_footer
from sentinel.chat.session import ChatSession, system_prompt_of
from sentinel.chat.startup import search_mode
from sentinel.cli.common import IndexOption, KindOption, VaultOption, console, load_settings
from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.embed.factory import embedder_from_settings
from sentinel.errors import BadInput
from sentinel.index.sync import sync
from sentinel.providers import ContextExceeded, ProviderError, provider_for
from sentinel.providers.servers import server_kind
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.registry import tool_schemas


def conversation_role(settings: Settings, **flags: object) -> Settings:
    given = {key: value for key, value in flags.items() if value is not None}
    if "kind" in given:
        server_kind(str(given["kind"]))  # raises UnknownKind, naming the known kinds
    return settings.model_copy(update={"conversation": settings.conversation.model_copy(update=given)})


class NoModelAnswered(BadInput):
    """``chat`` and ``ask`` try the conversation model before anything else runs: none answering there is the
    settings' to fix (or a server to start), said with where it looked, exit 2 as docs/answers.md has it."""


def settings_embedder(settings: Settings) -> Embedder | None:
    try:
        return embedder_from_settings(settings)
    except EmbedderUnavailable as error:
        raise EmbedderUnavailable(f"the embedder the settings ask for cannot load: {error}") from error


def _open_session(settings: Settings, temperature: float | None) -> ChatSession:
    if settings.conversation.num_ctx < 1:
        raise BadInput(
            f"the conversation's context window is {settings.conversation.num_ctx} tokens: pass --num-ctx N (N >= 1)"
        )
    system_prompt = system_prompt_of(settings)
    provider = provider_for(settings.conversation, "conversation")
    ctx = ToolContext(settings=settings, embedder=settings_embedder(settings))
    with ctx.write_lock:
        report = sync(settings, ctx.writer())
    console.print(Text(f"index: {report.added + report.updated + report.unchanged} pages, {report.seconds:.2f}s sync"))
    mode = search_mode(ctx)
    if mode.lexical_only:
        console.print(lexical_only_warning(mode.lexical_only))
    if mode.partial:
        console.print(Text(f"search: {mode.partial}; a page not yet embedded is found by wording only", style="yellow"))
    try:
        cost = measure_schema_cost(provider, system_prompt, tool_schemas(settings.folders))
    except ProviderError as error:
        raise NoModelAnswered(f"the conversation model did not answer: {error}") from error
    role = settings.conversation
    console.print(
        Text(
            f"model {role.model} via {role.kind} at {role.base_url}, window {role.num_ctx:,} tokens; "
            f"tool schemas: {cost.how}. /help lists the commands.",
            style="dim",
        )
    )
    return ChatSession(ctx, provider, system_prompt, cost, temperature=temperature)


def _read_line(echo: bool) -> str | None:
    try:
        line = console.input("[bold green]you>[/] ")
    except (EOFError, KeyboardInterrupt):
        return None
    if echo:  # input from a file or pipe: show what was "typed", so a recording reads like the session
        console.print(line, markup=False, highlight=False)
    return line


def _ask(session: ChatSession, question: str) -> None:
    try:
        turn = session.ask(question, on_step=lambda step: console.print(step_line(step)))
    except ContextExceeded as error:
        console.print(
            Text(f"the context is full, the question is not kept ({error}); /reset starts a new one", style="bold red")
        )
        return
    except ProviderError as error:
        console.print(Text(f"the model call failed, the question is not kept: {error}", style="bold red"))
        return
    except KeyboardInterrupt:
        console.print(Text("interrupted: the question is not kept (tools that already ran did run)", style="yellow"))
        return
    console.print(Text("model> ", style="bold blue") + Text(turn.answer or "(empty answer)"))
    window = session.budget()
    console.print(turn_footer(turn, session.schema_cost, window))
    warning = budget_warning(window, session.ctx.settings.chat.budget_warn_share)
    if warning is not None:
        console.print(warning)


def repl(session: ChatSession, echo: bool) -> None:
    while (line := _read_line(echo)) is not None:
        if not line.strip():
            continue
        command = parse_command(line)
        if command is None:
            _ask(session, line.strip())
        elif not run_command(session, command, console):
            return


def chat(
    ctx: typer.Context,
    vault: VaultOption = None,
    index: IndexOption = None,
    model: Annotated[str | None, typer.Option(help="Conversation model, as the server names it.")] = None,
    num_ctx: Annotated[
        int | None, typer.Option(min=1, help="Context window in tokens (what /budget measures against).")
    ] = None,
    provider: KindOption = None,
    base_url: Annotated[str | None, typer.Option(help="Server root (openai: up to /v1).")] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="Name of the environment variable holding the API key.")
    ] = None,
    embed_model: Annotated[
        Path | None,
        typer.Option(help="multilingual-e5-small ONNX folder; without it (or an embedder URL) search is lexical-only."),
    ] = None,
    system_prompt: Annotated[Path | None, typer.Option(help="System prompt file (default: Open WebUI's).")] = None,
    temperature: Annotated[
        float | None, typer.Option(min=0.0, help="Sampling temperature (default: the server's).")
    ] = None,
) -> None:
    """Chat with the vault through the conversation model: the tool loop, its statuses and its token budget."""
    settings = load_settings(ctx, vault, index, embed_model_dir=embed_model)
    settings = conversation_role(
        settings,
        kind=provider,
        model=model,
        num_ctx=num_ctx,
        base_url=base_url,
        api_key_env=api_key_env,
    )
    if system_prompt is not None:
        settings = settings.model_copy(
            update={"chat": settings.chat.model_copy(update={"system_prompt_file": system_prompt})}
        )
    repl(_open_session(settings, temperature), echo=not sys.stdin.isatty())
