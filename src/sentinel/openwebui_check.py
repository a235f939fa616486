"""The self-check `make up` ends with: one real question to the Sentinel model through Open WebUI's own chat API,
whose answer must rest on the page the question is about (the vault's welcome page by default): through the
answer pipeline, the answer's sources (the citations Open WebUI stored under it) must hold that page; through the
tool loop, a `search` call must have returned it.

It decides from what Open WebUI stored for the turn (the sources, the tool calls it ran and their results), never
from the model's wording: an answer that merely sounds right, with nothing behind it, fails.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx

from sentinel.openwebui import signed_in_client
from sentinel.settings import Settings

QUESTION = "What is the conversations folder of my vault for?"
EXPECTED_PAGE = "Welcome to Sentinel"


@dataclass
class CheckResult:
    ok: bool
    seconds: float
    detail: str

    def line(self, model: str) -> str:
        verdict = "OK" if self.ok else "FAILED"
        return f"self-check {verdict} in {self.seconds:.0f} s: {model}: {self.detail}"


def self_check(
    settings: Settings, question: str = QUESTION, expected: str = EXPECTED_PAGE, timeout_s: float = 600
) -> CheckResult:
    """Ask ``question`` in a new chat with the Sentinel model and report whether its answer rests on ``expected``."""
    owui = settings.openwebui
    started = time.monotonic()
    with signed_in_client(owui) as client:
        model = client.get("/api/v1/models/model", params={"id": owui.model_id})
        # the tools setup gave the model (none when it answers through the pipe), sent as the web page sends them
        tools = ((model.json() if model.status_code == 200 else {}).get("meta") or {}).get("toolIds") or []
        found = ask(client, owui.model_id, question, timeout_s, list(tools))
    seconds = time.monotonic() - started
    if found is None:
        return CheckResult(False, seconds, f"no finished answer within {timeout_s:.0f} s (make logs s=open-webui)")
    ok, detail = judge(found[1], expected)
    return CheckResult(ok, seconds, detail)


def judge(message: dict[str, Any], expected: str) -> tuple[bool, str]:
    """Whether the stored turn's answer cites ``expected`` (the pipeline), or ran `search` and a result of it
    holds ``expected`` (the tool loop); and what was seen."""
    cited = cited_sources(message)
    if any(expected in source for source in cited):
        return True, f"the answer cites '{expected}'"
    searches = [result for name, result in tool_results(message) if name == "search"]
    if not searches:
        said = " ".join(str(message.get("content", "")).split())[:160]
        where = f"its sources were {cited}" if cited else "it cites no page"
        return False, f"the model made no search call and {where}; it answered: {said!r}"
    if not any(expected in result for result in searches):
        return False, f"search ran but did not return '{expected}': {searches[0][:160]!r}"
    return True, f"search found '{expected}'"


def ask(
    client: httpx.Client,
    model: str,
    question: str,
    timeout_s: float,
    tool_ids: list[str],
    params: dict[str, Any] | None = None,
) -> tuple[str, dict[str, Any]] | None:
    """One new chat as the web page starts it (``params``: its model settings, as the page's chat controls send
    them); the chat's id and the finished assistant message as Open WebUI stored it, or None past ``timeout_s``."""
    user_id, assistant_id = str(uuid.uuid4()), str(uuid.uuid4())
    body = {
        "model": model,
        "stream": True,  # native tool calls run only on streamed turns with a chat and message id
        "parent_id": None,  # a new chat: Open WebUI creates it and runs the turn with its id
        "id": assistant_id,
        "tool_ids": tool_ids,
        "user_message": {"id": user_id, "role": "user", "content": question, "parentId": None},
        "messages": [{"role": "user", "content": question}],
        "params": params or {},
    }
    # Without a browser session Open WebUI answers once the whole turn, tool calls included, has run: a turn
    # longer than ``timeout_s`` is a check that got no answer, said as such (not a traceback).
    try:
        client.post("/api/chat/completions", json=body, timeout=timeout_s).raise_for_status()
    except httpx.TimeoutException:
        return None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for listed in client.get("/api/v1/chats/").json():
            history = client.get(f"/api/v1/chats/{listed['id']}").json()["chat"]["history"]["messages"]
            message = history.get(assistant_id)
            if message and message.get("done"):
                return str(listed["id"]), dict(message)
        time.sleep(1)
    return None


def cited_sources(message: dict[str, Any]) -> list[str]:
    """The names of the sources Open WebUI stored under the answer (the pipe's citations: the page paths)."""
    names = []
    for source in message.get("sources") or message.get("citations") or []:
        if isinstance(source, dict):
            given = source.get("source")
            named = given if isinstance(given, dict) else {}
            names.append(str(named.get("name") or ""))
            names += [str(m.get("name") or "") for m in source.get("metadata") or [] if isinstance(m, dict)]
    return [name for name in dict.fromkeys(names) if name]


def tool_results(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool name, result text) of every tool call Open WebUI ran for this message, from its stored ``output``:
    ``function_call`` items name the tool, ``function_call_output`` items with the same ``call_id`` hold the
    result as ``input_text`` parts."""
    items = message.get("output") or []
    names = {item.get("call_id"): str(item.get("name", "")) for item in items if item.get("type") == "function_call"}
    found = []
    for item in items:
        if item.get("type") != "function_call_output":
            continue
        output = item.get("output")
        parts = output if isinstance(output, list) else [{"text": output}]
        text = "".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))
        found.append((names.get(item.get("call_id"), ""), text))
    return found
