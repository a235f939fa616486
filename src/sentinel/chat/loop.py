"""One turn of the tool loop: ask the model, run the tool calls it makes, feed the results back, until it answers.

Pure apart from the provider and the tool runner it is handed, so a scripted model drives it in tests exactly as
a real one does at the terminal. Which calls run is the status markers' decision (``control``). Once the cap is
reached the next request offers no tools, so the model has to answer: a small model told in words to stop
calling tools goes on calling them (measured here with Qwen2.5-Coder-0.5B: nineteen calls in one reply).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sentinel.chat.accounting import CallUsage
from sentinel.chat.control import TurnControl, status_of
from sentinel.providers import ChatProvider, ChatResult, Message, ToolCall, assistant_message, tool_message
from sentinel.providers.base import ToolSchema
from sentinel.providers.toolcalls import parse_text_tool_calls, tool_names
from sentinel.tools.policy import Status
from sentinel.tools.registry import ToolOutput

# (tool name, arguments, turn id) -> the status-marked text the model reads, with the data behind it.
ToolRunner = Callable[[str, dict[str, Any], str], ToolOutput]


class Ending(StrEnum):
    ANSWERED = "answered"
    CUT = "cut"  # the answer hit the reply token limit: what is shown is not all the model meant to say
    CAP = "cap"  # after the cap, with no tools offered, the model still asked for one instead of answering


@dataclass(frozen=True)
class Step:
    """One tool call the model asked for, and what it was given back."""

    number: int
    name: str
    arguments: dict[str, Any]
    output: str
    ran: bool  # False: the harness refused it (cap, ended search chain, retry bound); ``output`` says why
    lenient: bool  # the call was read out of the model's text, not the API's tool-call field
    seconds: float

    @property
    def status(self) -> Status | None:
        return status_of(self.output)


@dataclass
class Turn:
    number: int
    question: str
    answer: str = ""
    ending: Ending = Ending.ANSWERED
    steps: list[Step] = field(default_factory=list)
    calls: list[CallUsage] = field(default_factory=list)

    @property
    def lenient_steps(self) -> int:
        return sum(1 for step in self.steps if step.lenient)


OnStep = Callable[[Step], None]


def _history_entry(result: ChatResult) -> Message:
    message = assistant_message(result)
    if result.lenient_tool_calls:
        # The text was the call: keeping it beside the tool_calls field would show the model each call twice.
        message["content"] = ""
    return message


def _run_call(
    call: ToolCall, number: int, lenient: bool, control: TurnControl, run_tool: ToolRunner, turn_id: str
) -> Step:
    started = time.perf_counter()
    refusal = control.admit(call)
    if refusal is not None:
        return Step(number, call.name, call.arguments, refusal, False, lenient, time.perf_counter() - started)
    output = run_tool(call.name, call.arguments, turn_id)
    control.observe(call, output, number)
    return Step(number, call.name, call.arguments, output.text, True, lenient, time.perf_counter() - started)


def run_turn(
    provider: ChatProvider,
    messages: list[Message],
    schemas: Sequence[ToolSchema],
    run_tool: ToolRunner,
    control: TurnControl,
    *,
    number: int,
    turn_id: str,
    reply_tokens: int,
    temperature: float | None = None,
    on_step: OnStep | None = None,
) -> Turn:
    """Run one turn over ``messages`` (which end with the user's message); appends to ``messages`` in place."""
    turn = Turn(number, str(messages[-1].get("content", "")))
    while True:
        offered = None if control.cap_reached else schemas
        request = messages if offered is not None else [*messages, cap_message(control.max_calls)]
        result = provider.chat(request, tools=offered, temperature=temperature, max_tokens=reply_tokens)
        turn.calls.append(CallUsage.of(result, with_schemas=offered is not None))
        messages.append(_history_entry(result))
        if not result.tool_calls:
            turn.answer = result.content
            turn.ending = _ending(result, offered, schemas)
            return turn
        for index, call in enumerate(result.tool_calls):
            step = _run_call(call, len(turn.steps) + 1, result.lenient_tool_calls, control, run_tool, turn_id)
            turn.steps.append(step)
            messages.append(tool_message(call, step.output, index))
            if on_step is not None:
                on_step(step)
        if offered is None:  # a server that returns tool calls although none were offered: refused, and done
            turn.ending = Ending.CAP
            return turn


def cap_message(max_calls: int) -> Message:
    """Sent with the request that offers no tools, and kept out of the history: the user never said it.

    A separate message, not a line in a tool result: Qwen2.5-Coder-0.5B, told the cap only in the result, went
    on writing calls as its answer, copying the note into them; told in a message of its own, it answered from the
    results (measured here).
    Worded as an order: worded as a description ("the cap ... is reached"), the same model searched for it.
    """
    return {
        "role": "user",
        "content": f"No more tool calls: the cap of {max_calls} for one answer is reached. Answer the question now, "
        "from the results above.",
    }


def _ending(result: ChatResult, offered: Sequence[ToolSchema] | None, schemas: Sequence[ToolSchema]) -> Ending:
    if offered is None and parse_text_tool_calls(result.content, tool_names(schemas)).lenient:
        return Ending.CAP  # the "answer" is a call written as text; with no tools offered it is not run
    return Ending.CUT if result.finish_reason == "length" else Ending.ANSWERED
