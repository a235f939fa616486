"""The slash commands: what each one prints, given a session and a console. The REPL only reads lines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from sentinel.chat.render import budget_view, step_detail, steps_view
from sentinel.chat.session import ChatSession
from sentinel.tools.policy import Status

HELP = {
    "/steps": "the tool calls of the last turn with their statuses; /steps N shows step N's whole result",
    "/budget": "tokens in the context window now (schemas, system prompt, conversation) and session totals",
    "/reset": "start a new context (and a new conversation for /save); session totals are kept",
    "/save": "/save <subject> [| <content>]: capture this conversation into notes/<subject>.md, with the "
    "transcript under conversations/ (content defaults to the last answer)",
    "/quit": "leave (also Ctrl-D)",
    "/help": "this list",
}


@dataclass(frozen=True)
class Command:
    name: str
    argument: str


def parse_command(line: str) -> Command | None:
    """The command in ``line``, or None when the line is a question for the model."""
    text = line.strip()
    if not text.startswith("/"):
        return None
    name, _, argument = text.partition(" ")
    return Command(name.lower(), argument.strip())


def _steps(session: ChatSession, argument: str, console: Console) -> None:
    if not argument:
        console.print(steps_view(session.last_turn))
    elif argument.isdigit():
        console.print(step_detail(session.last_turn, int(argument)))
    else:
        console.print(Text(f"/steps takes a step number, e.g. /steps 2; got {argument!r}", style="bold red"))


def _budget(session: ChatSession, argument: str, console: Console) -> None:
    console.print(budget_view(session.budget(), session.schema_cost, session.session_usage(), len(session.turns)))


def _reset(session: ChatSession, argument: str, console: Console) -> None:
    session.reset()
    console.print(Text(f"new context; this conversation is now {session.chat_id}", style="green"))


def _save(session: ChatSession, argument: str, console: Console) -> None:
    subject, bar, content = argument.partition("|")
    if not subject.strip():
        console.print(Text("/save needs a subject: /save <subject> [| <content>]", style="bold red"))
        return
    result = session.save(subject.strip(), content.strip() if bar else None)
    style = "green" if result.status in (Status.OK, Status.NEXT) else "bold red"
    console.print(Text(result.render(), style=style))


def _help(session: ChatSession, argument: str, console: Console) -> None:
    for name, text in HELP.items():
        console.print(Text.assemble((f"{name:8}", "bold"), text))


_HANDLERS: dict[str, Callable[[ChatSession, str, Console], None]] = {
    "/steps": _steps,
    "/budget": _budget,
    "/reset": _reset,
    "/save": _save,
    "/help": _help,
}


def run_command(session: ChatSession, command: Command, console: Console) -> bool:
    """Run one command; False when it was /quit."""
    if command.name in ("/quit", "/exit"):
        return False
    handler = _HANDLERS.get(command.name)
    if handler is None:
        console.print(Text(f"unknown command {command.name}; the commands are {', '.join(HELP)}", style="bold red"))
        return True
    handler(session, command.argument, console)
    return True
