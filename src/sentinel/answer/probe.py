"""Does a model run the tool loop itself? The probe ``sentinel openwebui setup`` asks when ``answer.mode`` is auto.

Two turns, both checked in code: offered ``search``, asked to search, the model must answer with a native call
(the API's ``tool_calls`` field, not JSON written as text) naming ``search`` with a query; handed the result,
it must then answer in prose (no call, nothing call-shaped). A model that fails either gets the answer pipeline,
where code runs the ladder and the model only writes checked sentences.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentinel.answer.compose import call_shaped
from sentinel.providers.base import ChatProvider, ProviderError, assistant_message, tool_message
from sentinel.tools.registry import TOOLS

QUESTION = "Search my notes: what is genmaicha?"
RESULT = "[OK] notes/Tea.md: Genmaicha is a Japanese green tea mixed with roasted brown rice."


@dataclass(frozen=True)
class Probe:
    tools: bool  # True: the model runs the tool loop itself
    reason: str


def probe_tool_calling(provider: ChatProvider, reply_tokens: int = 160) -> Probe:
    search = TOOLS["search"]
    schema = {
        "type": "function",
        "function": {"name": "search", "description": search.description, "parameters": search.parameters},
    }
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You answer questions about the user's notes. Use the search tool."},
        {"role": "user", "content": QUESTION},
    ]
    try:
        first = provider.chat(messages, tools=[schema], temperature=0.0, max_tokens=reply_tokens)
        if not first.tool_calls or first.lenient_tool_calls:
            return Probe(False, "it wrote no native tool call when asked to search (a call as text, or none)")
        call = first.tool_calls[0]
        if call.name != "search" or not str(call.arguments.get("query") or "").strip():
            return Probe(False, f"its first call was {call.name}({call.arguments}), not a search with a query")
        messages += [assistant_message(first), tool_message(call, RESULT)]
        second = provider.chat(messages, tools=[schema], temperature=0.0, max_tokens=reply_tokens)
    except ProviderError as err:
        return Probe(False, f"it did not answer the probe ({err})")
    if second.tool_calls or call_shaped(second.content) or not second.content.strip():
        return Probe(False, "handed a search result, it did not answer in prose")
    return Probe(True, "it called search natively and then answered in prose")
