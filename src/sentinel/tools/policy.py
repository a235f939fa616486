"""One output policy for every primitive: a status first, never refuse for size, never truncate silently.

Each status answers a different control-flow question for the model (``MEANINGS``). The markers are listed from
``Status`` wherever they are told (MCP's instructions, the system prompt's slot); the README is checked against it
(tests/tools/test_status_markers.py). A new marker is a line in ``Status``, one in ``MEANINGS`` and the README's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    OK = "[OK]"
    NEXT = "[OK → next]"
    DONE = "[DONE]"
    RETRY = "[RETRY]"
    STOP = "[STOP]"
    MORE = "[more]"
    NOTE = "[note]"


# What the model does on each status, in the words every prompt tells it (``sentinel.prompts`` writes these into
# the prompt's ``{status_markers}`` slot): the one home of that decision.
MEANINGS: dict[Status, str] = {
    Status.OK: "done, use it.",
    Status.NEXT: "done, and it names the natural next step.",
    Status.DONE: "nothing more to find: stop searching and answer with what you have, or say the vault does not "
    "cover it.",
    Status.RETRY: "fixable: do what it says, once.",
    Status.STOP: "impossible: do not retry or reword; tell the user.",
    Status.MORE: "the answer is cut: continue with the cursor it gives only if you need the rest.",
    Status.NOTE: "side information (for example that search ran on wording only); mention it if it matters.",
}


def markers() -> str:
    """Every status marker, in order: ``[OK], [OK → next], ...``."""
    return ", ".join(status.value for status in Status)


@dataclass(frozen=True)
class Continuation:
    """The call that fetches the rest of a cut answer: data first, rendered as text for the model from the data."""

    tool: str
    arguments: dict[str, Any]

    def call(self) -> str:
        args = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in self.arguments.items())
        return f"{self.tool}({args})"


@dataclass
class ToolResult:
    """What a primitive returns: one status, the body, notes shown as ``[note]`` lines after it, and for a cut
    answer the continuation (every door reads that field: the model's text, MCP's structured content, the chat
    harness's control)."""

    status: Status
    body: str
    notes: list[str] = field(default_factory=list)
    continuation: Continuation | None = None
    pages: list[str] = field(default_factory=list)  # vault paths the answer is about (its hits), for logs

    def render(self, health: str = "") -> str:
        lines = [f"{self.status} {self.body}".rstrip()]
        lines += [f"{Status.NOTE} {note}" for note in self.notes]
        if health:
            lines.append(f"{Status.NOTE} {health}")
        return "\n".join(lines)


def retry(message: str) -> ToolResult:
    return ToolResult(Status.RETRY, message)


def stop(message: str) -> ToolResult:
    return ToolResult(Status.STOP, message)


@dataclass(frozen=True)
class Window:
    """A window onto a longer sequence: which slice is shown and where the next one starts."""

    start: int
    end: int
    total: int

    @property
    def cut(self) -> bool:
        return self.end < self.total


def window(total: int, cursor: int, size: int) -> Window:
    start = max(0, min(cursor, total))
    return Window(start, min(total, start + size), total)


def more_line(shown: Window, unit: str, then: Continuation) -> str:
    """The sentence that tells a cut answer from a complete one."""
    return f"showing {unit} {shown.start + 1}-{shown.end} of {shown.total}; continue with {then.call()}"
