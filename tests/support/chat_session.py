"""What the chat tests share: the pages a session's vault holds, scripted model replies, and what a session or a
slash command prints (the ``make_session`` fixture is in tests/chat/conftest.py)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from rich.console import Console, RenderableType

from sentinel import prompts
from sentinel.chat.accounting import SchemaCost
from sentinel.chat.commands import parse_command, run_command
from sentinel.chat.session import ChatSession
from sentinel.providers import ChatResult, Timings, ToolCall
from tests.support.scripted import ScriptedProvider

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PROMPT_FILE = prompts.SYSTEM_PROMPT
# What a scripted session pretends the schemas and the system prompt cost (a real one measures them).
SCRIPTED_COST = SchemaCost(schema_tokens=2000, base_tokens=500, how="scripted")

PAGES = {
    "notes/Growth queue.md": "# Growth queue\n\nThe growth queue lists names that no page answers to yet.\n",
    "notes/Sync.md": "# Sync\n\nObsidian Sync keeps a vault identical across devices with end-to-end encryption.\n",
    "sources/Encryption.md": "# Encryption\n\nSync derives its key with scrypt, a key derivation function.\n",
}

MakeSession = Callable[..., tuple[ChatSession, ScriptedProvider]]


def call(name: str, **arguments: object) -> ChatResult:
    """A model reply that asks for one tool through the API's tool-call field."""
    return calls((name, arguments))


def calls(*requested: tuple[str, dict[str, object]]) -> ChatResult:
    """A model reply that asks for several tools at once."""
    return ChatResult(
        content="",
        tool_calls=[ToolCall(name, dict(arguments)) for name, arguments in requested],
        prompt_tokens=2600,
        completion_tokens=20,
        timings=Timings(total_s=0.5, load_s=0.1, prefill_s=0.3, generation_s=0.1),
        finish_reason="tool_calls",
    )


def answer(text: str, prompt_tokens: int = 2900, completion_tokens: int = 40) -> ChatResult:
    return ChatResult(
        content=text,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        timings=Timings(total_s=1.0, load_s=0.0, prefill_s=0.2, generation_s=0.8),
        finish_reason="stop",
    )


def _console() -> Console:
    return Console(record=True, width=200, color_system=None, file=io.StringIO())


def rendered(renderable: RenderableType) -> str:
    """A renderable as the plain text a terminal would show."""
    console = _console()
    console.print(renderable)
    return console.export_text()


def command_output(session: ChatSession, line: str) -> str:
    """What a slash command prints, as plain text."""
    console = _console()
    command = parse_command(line)
    assert command is not None, f"{line!r} is not a command"
    run_command(session, command, console)
    return console.export_text()
