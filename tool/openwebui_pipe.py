"""
title: Sentinel answers
author: Sentinel
description: Answers from your vault, each sentence checked against the passage it cites.
version: 0.1.0
license: MIT
"""

# Loaded by Open WebUI as a pipe (a model of its own), not by Sentinel: only the standard library, pydantic and
# httpx (both ship with Open WebUI). It decides nothing: it hands the conversation and the chat's id to the
# tool API's POST /v1/ask (sentinel.answer), shows the answer, and puts each citation in Open WebUI's sources
# panel. Open WebUI also calls a chat's model for its own background tasks (a title, tags, follow-ups); those
# are answered here in code and never reach the vault: a save request in the history must not save twice.
# Helpers start with "_" (public methods of a function are not tools, but the rule is kept for one reading).

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from pydantic import BaseModel, Field

Emitter = Callable[[dict[str, Any]], Awaitable[None]] | None


class Pipe:
    class Valves(BaseModel):
        api_url: str = Field("http://api:8000", description="Sentinel tool API root, as Open WebUI reaches it.")
        api_key: str = Field("", description="A write-scoped Sentinel API key (sentinel keys create --scope write).")
        timeout_s: float = Field(300.0, description="Seconds one answer may take (a CPU model is slow).")

    def __init__(self) -> None:
        self.valves = self.Valves()

    async def pipe(
        self,
        body: dict[str, Any],
        __metadata__: dict[str, Any] | None = None,
        __event_emitter__: Emitter = None,
        __task__: str | None = None,
    ) -> str:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if __task__:
            return _task_reply(str(__task__), messages)
        if not self.valves.api_key:
            return "Sentinel has no API key: an admin sets it in this function's valves (sentinel openwebui setup)."
        chat_id = str((__metadata__ or {}).get("chat_id") or "")
        payload = {"messages": [_plain(m) for m in messages if m.get("role") in ("user", "assistant")]}
        payload["chat_id"] = chat_id
        root, headers = self.valves.api_url.rstrip("/"), {"Authorization": f"Bearer {self.valves.api_key}"}
        try:
            async with httpx.AsyncClient(timeout=self.valves.timeout_s) as client:
                await _working(__event_emitter__, client, root, payload, headers)
                response = await client.post(root + "/v1/ask", json=payload, headers=headers)
        except httpx.HTTPError as exc:
            await _status(__event_emitter__, "Sentinel could not be reached", done=True)
            return f"Sentinel's tool API at {self.valves.api_url} could not be reached ({exc!r})."
        if response.status_code != 200:
            await _status(__event_emitter__, "Sentinel refused the question", done=True)
            return f"Sentinel answered {response.status_code}: {_detail(response)}"
        answer = response.json()
        for citation in answer.get("citations") or []:
            await _cite(__event_emitter__, citation)
        await _status(__event_emitter__, str(answer.get("status") or ""), done=True)
        return str(answer.get("answer") or "")


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, list):  # OpenAI content parts: the text is what a transcript keeps
        content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return {"role": message.get("role"), "content": content if isinstance(content, str) else ""}


def _task_reply(task: str, messages: list[dict[str, Any]]) -> str:
    """Open WebUI's background tasks, answered in code: a title from the user's first words, no tags, no
    follow-ups, nothing else."""
    if "title" in task:
        prompt = str(messages[-1].get("content") if messages else "")
        found = re.search(r"USER:\s*(.+)", prompt)
        words = (found.group(1) if found else "Sentinel").split()[:6]
        return json.dumps({"title": " ".join(words).strip(" ?.!:") or "Sentinel"})
    if "tag" in task:
        return json.dumps({"tags": []})
    if "follow" in task:
        return json.dumps({"follow_ups": []})
    return ""


async def _working(
    emit: Emitter, client: httpx.AsyncClient, root: str, payload: dict[str, Any], headers: dict[str, str]
) -> None:
    """The line shown while the answer is made, as the tool API words it for this turn (its language is known
    there, not here); none when the API does not say (the answer itself reports what went wrong)."""
    try:
        response = await client.post(root + "/v1/ask/status", json=payload, headers=headers, timeout=10.0)
    except httpx.HTTPError:
        return
    if response.status_code == 200 and (line := str(response.json().get("status") or "")):
        await _status(emit, line, done=False)


async def _status(emit: Emitter, text: str, done: bool) -> None:
    if emit is not None:
        await emit({"type": "status", "data": {"description": text, "done": done}})


async def _cite(emit: Emitter, citation: dict[str, Any]) -> None:
    """One citation in Open WebUI's sources panel: the page (opening in Obsidian) and the passage quoted."""
    if emit is None:
        return
    where = str(citation.get("path", "")) + (f" › {citation['heading']}" if citation.get("heading") else "")
    url = str(citation.get("url") or "")
    data = {
        "document": [str(citation.get("quote") or where)],
        "metadata": [{"source": url or where, "name": where}],
        "source": {"name": where, "url": url},
    }
    await emit({"type": "citation", "data": data})


def _detail(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300]
    return str(data.get("detail", data) if isinstance(data, dict) else data)[:300]
