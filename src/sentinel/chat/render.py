"""Everything the harness prints, as rich renderables: steps, turn footers, /steps, /budget, warnings.

A cut is always said: a table cell shows the first line of a result and how much more there is, never less
without saying so.
"""

from __future__ import annotations

import json
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from sentinel.chat.accounting import Budget, SchemaCost, Usage, usage_of
from sentinel.chat.loop import Ending, Step, Turn

CELL_CHARS = 90


def _n(value: int | None) -> str:
    return "unknown" if value is None else f"{value:,}"


def _share(part: int | None, whole: int | None) -> str:
    if part is None or not whole:
        return ""
    return f"{100 * part / whole:.0f}%"


def arguments_text(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())


def first_line(text: str, limit: int = CELL_CHARS) -> str:
    """The first line of ``text`` within ``limit`` characters, saying how much is not shown."""
    line = text.splitlines()[0] if text else ""
    hidden = len(text) - len(line[:limit])
    return line[:limit] + (f" … (+{hidden:,} chars)" if hidden > 0 else "")


def step_line(step: Step) -> Text:
    """The line printed as a tool call happens."""
    line = Text("  ")
    line.append(f"{step.number}. ", style="dim")
    line.append(f"{step.name}({arguments_text(step.arguments)})", style="cyan")
    line.append(" → ", style="dim")
    # A refusal's text says "not run" and why; it is the harness speaking, so it stands out.
    line.append(first_line(step.output), style="" if step.ran else "bold yellow")
    if step.lenient:
        line.append("  [lenient: call read from the model's text]", style="magenta")
    return line


def timings_text(usage: Usage) -> str:
    if usage.prefill_s is not None and usage.generation_s is not None:
        return f"load {usage.load_s or 0.0:.1f}s prefill {usage.prefill_s:.1f}s generation {usage.generation_s:.1f}s"
    return f"{usage.total_s:.1f}s wall clock (the endpoint gives no load/prefill/generation split)"


def tokens_text(usage: Usage, cost: SchemaCost) -> str:
    schema = usage.schema_share(cost)
    text = f"prompt {_n(usage.prompt_tokens)} (schemas {_n(schema)}"
    text += f" = {_share(schema, usage.prompt_tokens)})" if schema is not None else ")"
    text += f", completion {_n(usage.completion_tokens)}"
    if usage.unreported:
        text += f"; {usage.unreported} call(s) reported no usage and are not counted"
    return text


def turn_footer(turn: Turn, cost: SchemaCost, window: Budget) -> RenderableType:
    usage = usage_of(turn.calls)
    ran = sum(1 for step in turn.steps if step.ran)
    parts = [
        f"turn {turn.number}: {usage.calls} model call(s), {ran} tool call(s) run"
        + (f", {len(turn.steps) - ran} refused" if len(turn.steps) > ran else ""),
        tokens_text(usage, cost),
        f"context {_n(window.in_context)}/{window.window:,} {_share(window.in_context, window.window)}",
        timings_text(usage),
    ]
    lines: list[RenderableType] = [Text(" · ".join(parts), style="dim")]
    if turn.lenient_steps:
        lines.append(
            Text(
                f"lenient parsing: {turn.lenient_steps} of {len(turn.steps)} tool call(s) were written as JSON in "
                "the model's text, not in the API's tool-call field",
                style="magenta",
            )
        )
    if turn.ending is Ending.CUT:
        lines.append(Text("the answer was cut at the reply token limit (chat.reply_tokens)", style="bold yellow"))
    if turn.ending is Ending.CAP:
        lines.append(
            Text(
                "after the cap, with no tools offered, the model asked for a tool instead of answering (not run)",
                style="bold red",
            )
        )
    return Group(*lines)


def steps_view(turn: Turn | None) -> RenderableType:
    if turn is None:
        return Text("no turn yet in this context")
    if not turn.steps:
        return Text(f"turn {turn.number} made no tool call")
    table = Table(title=f"turn {turn.number}: tool calls", title_justify="left", box=box.SIMPLE_HEAD)
    for column in ("#", "tool", "arguments", "status", "what happened"):
        table.add_column(column, overflow="fold")
    for step in turn.steps:
        happened = "ran" if step.ran else "refused by the harness"
        happened += f", {step.seconds * 1000:.0f} ms" if step.ran else ""
        happened += ", lenient" if step.lenient else ""
        status = step.status.value if step.status else "(none)"
        # Text cells: a status such as [more] would otherwise be read as console markup and vanish.
        table.add_row(
            *(Text(cell) for cell in (str(step.number), step.name, arguments_text(step.arguments), status, happened))
        )
    return Group(table, Text("/steps N shows the whole result of step N", style="dim"))


def step_detail(turn: Turn | None, number: int) -> RenderableType:
    steps = turn.steps if turn else []
    if not 1 <= number <= len(steps):
        return Text(f"no step {number}: the last turn has {len(steps)} step(s)", style="bold red")
    step = steps[number - 1]
    title = f"step {number}: {step.name}({arguments_text(step.arguments)})"
    return Panel(Text(step.output), title=title, title_align="left")


def budget_view(window: Budget, cost: SchemaCost, session: Usage, turns: int) -> RenderableType:
    table = Table(title=f"context window {window.window:,} tokens", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("")
    table.add_column("tokens", justify="right")
    table.add_column("share", justify="right")
    table.add_row("in context now", _n(window.in_context), _share(window.in_context, window.window))
    table.add_row("  tool schemas (7)", _n(window.schema_tokens), _share(window.schema_tokens, window.window))
    table.add_row("  system prompt + template", _n(window.base_tokens), _share(window.base_tokens, window.window))
    table.add_row("  conversation", _n(window.conversation_tokens), _share(window.conversation_tokens, window.window))
    table.add_row("free", _n(window.free), _share(window.free, window.window))
    lines = [f"schemas: {cost.how}"]
    if window.schemas_withheld:
        lines.append(
            f"the last request offered no tools (the cap was reached); the next one carries the schemas again "
            f"(+{_n(cost.schema_tokens)})"
        )
    lines += [
        f"session: {turns} turn(s), {session.calls} model call(s); {tokens_text(session, cost)}",
        f"session time: {timings_text(session)}",
    ]
    return Group(table, *(Text(line, style="dim") for line in lines))


def budget_warning(window: Budget, warn_share: float) -> Text | None:
    if window.share is None or window.share < warn_share:
        return None
    return Text(
        f"the context holds {window.share:.0%} of the {window.window:,}-token window: /reset starts a new one",
        style="bold yellow",
    )


def lexical_only_warning(reason: str) -> Panel:
    return Panel(
        Text(
            f"SEARCH WILL BE LEXICAL-ONLY: {reason}.\nOnly the wording half of search runs: matches by meaning are "
            "missing from every answer.",
            style="bold",
        ),
        title="warning",
        border_style="bold red",
    )
