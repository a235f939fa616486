"""MCP's ``ask``: the answer pipeline for agents, read-only (a save request is answered, never carried out)."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.providers import ProviderNotConfigured, provider_for
from sentinel.providers.base import ChatProvider
from sentinel.tools.context import ToolContext

NAME = "ask"
DESCRIPTION = (
    "Ask a question about the vault and get an answer whose every sentence was checked against the passage it "
    "cites (or the passages themselves, quoted, when no sentence held). Read-only: it never writes."
)
TOOL = types.Tool(
    name=NAME,
    description=DESCRIPTION,
    input_schema={
        "type": "object",
        "properties": {"question": {"type": "string", "description": "a question about the vault"}},
        "required": ["question"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)


def conversation_model(ctx: ToolContext) -> ChatProvider | None:
    try:
        return provider_for(ctx.settings.conversation, "conversation")
    except ProviderNotConfigured:
        return None


def render(answer: Answer) -> str:
    lines = [answer.answer]
    if answer.citations:
        lines += ["", "Sources:"]
        lines += [
            f"[{n}] {c.path}" + (f" > {c.heading}" if c.heading else "") for n, c in enumerate(answer.citations, 1)
        ]
    return "\n".join(lines)


def run_ask(ctx: ToolContext, provider: ChatProvider | None, arguments: dict[str, Any]) -> types.CallToolResult:
    question = arguments.get("question")
    if not isinstance(question, str) or not question.strip():
        text = '[RETRY] ask takes a question, e.g. {"question": "what is the growth queue?"}'
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
    turn = Turn([{"role": "user", "content": question}], can_write=False)
    answer = answer_turn(ctx, provider, turn, ctx.settings.conversation.model if provider else "")
    result = types.CallToolResult(content=[types.TextContent(text=render(answer))])
    result.structured_content = answer.as_dict()
    return result
