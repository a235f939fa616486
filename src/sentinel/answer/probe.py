"""Does a model run the tool loop itself? The probe ``sentinel openwebui setup`` asks when ``answer.mode`` is auto.

Two turns, both checked in code: offered ``search``, asked to search, the model must answer with a native call
(the API's ``tool_calls`` field, not JSON written as text) naming ``search`` with a query; handed the result,
it must then answer in prose (no call, nothing call-shaped). A model that fails either gets the answer pipeline,
where code runs the ladder and the model only writes checked sentences.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sentinel.answer.compose import call_shaped
from sentinel.providers.base import ChatProvider, ProviderError, assistant_message, tool_message
from sentinel.tools.registry import TOOLS

QUESTION = "Search my notes: what is genmaicha?"
RESULT = "[OK] notes/Tea.md: Genmaicha is a Japanese green tea mixed with roasted brown rice."


@dataclass(frozen=True)
class Probe:
    tools: bool  # True: the model runs the tool loop itself
    reason: str
    conclusive: bool = True  # False: the model server did not answer, so nothing was learnt about the model


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
        return Probe(False, f"it did not answer the probe ({err})", conclusive=False)
    if second.tool_calls or call_shaped(second.content) or not second.content.strip():
        return Probe(False, "handed a search result, it did not answer in prose")
    return Probe(True, "it called search natively and then answered in prose")


def probe_key(kind: str, base_url: str, model: str) -> str:
    """What a recorded probe result holds for: the model server, the model's name, and the probe itself (a changed
    question or result text asks again)."""
    probe_text = f"{QUESTION}\n{RESULT}\n{TOOLS['search'].description}"
    identity = json.dumps([kind, base_url.rstrip("/"), model, probe_text])
    return hashlib.sha256(identity.encode()).hexdigest()


def recorded_probe(path: Path, key: str, ask: Callable[[], Probe], *, fresh: bool = False) -> Probe:
    """The probe's result for ``key``, asked once and recorded in ``path``: a warm start of the stack would
    otherwise queue the probe's two turns behind the model server's warm-up on every start. Only a conclusive
    answer is recorded (a model server that did not answer is asked again next time); ``fresh`` asks anyway."""
    if not fresh:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None
        if isinstance(record, dict) and record.get("key") == key and isinstance(record.get("tools"), bool):
            when = str(record.get("at") or "earlier")
            return Probe(record["tools"], f"{record.get('reason', '')}; recorded {when}, asked again with --probe")
    found = ask()
    if found.conclusive:
        record = {"key": key, "tools": found.tools, "reason": found.reason, "at": datetime.now(UTC).isoformat()}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(record), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            pass  # an unwritable data folder only costs the next start the probe again
    return found
