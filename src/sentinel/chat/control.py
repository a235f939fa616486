"""What the status markers decide within one turn: which requested tool calls run, and what the model is told.

- [DONE] or [STOP] from search ends the search chain: a later search in the same turn is not run, and the model
  is told why (it reads a tool result as an answer, so the refusal must say what to do instead).
- [more] may be followed: the continuation a search offered still runs after the chain ended.
- [RETRY] allows a bounded retry: once a tool has answered [RETRY] more often than ``retries_per_tool`` allows,
  it is not run again in the turn.
- A hard cap on tool calls per turn: every call past it is refused with the cap named, and the loop stops
  offering tools and says so in a message of its own (``loop.cap_message``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sentinel.providers import ToolCall
from sentinel.tools.policy import Status
from sentinel.tools.registry import ToolOutput

# Longest first, so "[OK → next]" is not read as "[OK]".
_STATUSES = sorted(Status, key=lambda status: len(status.value), reverse=True)
_SEARCH_ENDERS = (Status.DONE, Status.STOP)


def status_of(text: str) -> Status | None:
    """The status marker a tool result opens with (None: the text carries none)."""
    head = text.lstrip()
    return next((status for status in _STATUSES if head.startswith(status.value)), None)


def _continuation(arguments: dict[str, Any]) -> tuple[str, str, int] | None:
    """(query, rung, cursor) of a search call, the shape a [more] line offers."""
    try:
        cursor = int(arguments.get("cursor", 0))
    except (TypeError, ValueError):
        return None
    return str(arguments.get("query", "")), str(arguments.get("rung", "summary")), cursor


@dataclass
class TurnControl:
    """The marker-driven state of one turn. ``admit`` before a call, ``observe`` after it ran."""

    max_calls: int
    retries_per_tool: int
    calls: int = 0
    search_ended_by: str = ""
    retries: Counter[str] = field(default_factory=Counter)
    offered: set[tuple[str, str, int]] = field(default_factory=set)

    @property
    def cap_reached(self) -> bool:
        return self.calls >= self.max_calls

    def admit(self, call: ToolCall) -> str | None:
        """None when the call may run; otherwise the status-marked text the model gets instead of a result."""
        self.calls += 1
        if self.calls > self.max_calls:
            return (
                f"{Status.STOP} not run: the cap of {self.max_calls} tool calls for one answer is reached. "
                "Answer now from the results above, or tell the user what is still missing."
            )
        if self.retries[call.name] > self.retries_per_tool:
            return (
                f"{Status.STOP} not run: {call.name} answered {Status.RETRY} {self.retries[call.name]} times in "
                "this turn and is not run again before the user's next message. Tell the user what went wrong."
            )
        if call.name == "search" and self.search_ended_by and _continuation(call.arguments) not in self.offered:
            return (
                f"{Status.DONE} not run: searching ended in this turn ({self.search_ended_by}). Answer from the "
                "results above, or say that the vault does not cover it."
            )
        return None

    def observe(self, call: ToolCall, output: ToolOutput, step: int) -> None:
        """Record what a call that ran answered; a continuation it offered is read from the data, not the text."""
        status = output.status
        if status is Status.RETRY:
            self.retries[call.name] += 1
        if call.name == "search" and status in _SEARCH_ENDERS:
            self.search_ended_by = self.search_ended_by or f"search answered {status} at step {step}"
        then = output.continuation
        if then is not None and then.tool == "search" and (offered := _continuation(then.arguments)) is not None:
            self.offered.add(offered)
