"""
title: Sentinel
author: Sentinel
description: Your markdown vault: search, read, list, link graph, write on request, and save the conversation.
version: 0.1.0
license: MIT
"""

# Loaded by Open WebUI, not by Sentinel: only the standard library, pydantic and httpx (both ship with Open WebUI).
# It imports nothing of Sentinel's, so there is no module of ours to clear or reload: `sentinel openwebui setup`
# uploads a changed file's text, and Open WebUI loads the tool from that.
# Open WebUI rewrites some import prefixes anywhere in this text, and turns every public method into a tool, so
# helpers start with "_" and the method names avoid its built-in tools (search_notes, write_note, ...).
# Each method docstring is the description the model reads: the rules live there (rules in the schema hold).
# Open WebUI sends the raw docstring up to ':param', so each description stays on one (long) line. They are the
# core's descriptions (sentinel.tools) word for word: tests/openwebui/test_tool_loader.py holds them equal.

from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field


class Tools:
    class Valves(BaseModel):
        api_url: str = Field("http://api:8000", description="Sentinel tool API root, as Open WebUI reaches it.")
        api_key: str = Field("", description="A write-scoped Sentinel API key (sentinel keys create --scope write).")
        timeout_s: float = Field(120.0, description="Seconds to wait for one tool call.")

    def __init__(self) -> None:
        self.valves = self.Valves()

    async def search(
        self,
        query: str,
        rung: Literal["summary", "body"] = "summary",
        cursor: int = 0,
        __metadata__: dict[str, Any] | None = None,
    ) -> str:
        """Search the vault (always before answering from memory). rung='summary' (default) gives one line per page saying what it is: usually enough. rung='body' gives verbatim passages: use it only when a summary showed a page is relevant but lacks the answer. Hits are in rank order. On [DONE] stop searching and answer.
        :param query: words or a question
        :param rung: summary or body
        :param cursor: from a [more] line
        """  # noqa: E501
        args = {"query": query, "rung": rung, "cursor": cursor}
        return await self._call("search", args, turn=_turn_of(__metadata__), chat=_chat_of(__metadata__))

    async def read(
        self,
        path: str,
        depth: Literal["outline", "section", "page"] = "outline",
        section: str = "",
        cursor: int = 0,
        __metadata__: dict[str, Any] | None = None,
    ) -> str:
        """Open one vault page (its path, or its name as search shows it), cheapest depth first: depth='outline' (default) lists its sections with their sizes and the page hash; depth='section' with section=<heading or number> shows one section; depth='page' shows the whole text in pieces. [more] gives the cursor for the next piece. Use after search showed the page is relevant.
        :param path: vault-relative, e.g. notes/Topic.md
        :param depth: outline, section or page
        :param section: heading or number, with depth=section
        :param cursor: from a [more] line
        """  # noqa: E501
        args = {"path": path, "depth": depth, "section": section, "cursor": cursor}
        return await self._call("read", args, chat=_chat_of(__metadata__))

    async def listing(
        self, folder: str = "", filter: str = "", cursor: int = 0, __metadata__: dict[str, Any] | None = None
    ) -> str:
        """List vault pages, sorted and paged: folder='notes' (or any folder; empty = whole vault); filter takes frontmatter facets like 'type:concept status:seedling tag:x role:source', plus 'sort:recent' (newest first) or the word 'unresolved' (names links reach for that have no page yet: do not read those, no page exists).
        :param folder: e.g. notes; empty = all
        :param filter: e.g. type:concept sort:recent
        :param cursor: from a [more] line
        """  # noqa: E501
        args = {"folder": folder, "filter": filter, "cursor": cursor}
        return await self._call("listing", args, chat=_chat_of(__metadata__))

    async def graph(self, target: str, __metadata__: dict[str, Any] | None = None) -> str:
        """Show how a page (path or name) connects: what it points at, what points at it, which of its links reach no page yet and how many pages reach for each such name. Names with no page must not be read.
        :param target: page path or name
        """  # noqa: E501
        return await self._call("graph", {"target": target}, chat=_chat_of(__metadata__))

    async def write(
        self,
        path: str,
        content: str,
        mode: Literal["create", "append", "replace"] = "create",
        expected_hash: str = "",
        __metadata__: dict[str, Any] | None = None,
    ) -> str:
        """Write a vault page, only when the user asked for it. mode='create' makes a new page (fails if it exists); 'append' adds to the end; 'replace' swaps the whole text and needs expected_hash from your last read of the page. Pages under conversations/ can never be written ([STOP]); new pages under wiki/ cannot be created from a chat ([STOP]); use notes/.
        :param path: vault-relative, e.g. notes/Topic.md
        :param content: markdown
        :param mode: create, append or replace
        :param expected_hash: hash from read; needed for replace
        """  # noqa: E501
        args = {"path": path, "content": content, "mode": mode, "expected_hash": expected_hash}
        return await self._call("write", args, chat=_chat_of(__metadata__))

    async def relocate(self, source: str, destination: str, __metadata__: dict[str, Any] | None = None) -> str:
        """Move or rename a vault page, only when the user asked for it; every link to it is rewritten to the new name. Transcripts under conversations/ cannot be moved ([STOP]).
        :param source: vault-relative, e.g. notes/Topic.md
        :param destination: vault-relative, e.g. notes/Topic.md
        """  # noqa: E501
        args = {"source": source, "destination": destination}
        return await self._call("relocate", args, chat=_chat_of(__metadata__))

    async def remove(self, path: str, __metadata__: dict[str, Any] | None = None) -> str:
        """Delete a vault page, only when the user asked for it. Links to it stay and point nowhere until a page with that name exists again. Transcripts under conversations/ can never be removed ([STOP]).
        :param path: vault-relative, e.g. notes/Topic.md
        """  # noqa: E501
        return await self._call("remove", {"path": path}, chat=_chat_of(__metadata__))

    async def save(
        self,
        subject: str,
        content: str,
        __messages__: list[dict[str, Any]] | None = None,
        __metadata__: dict[str, Any] | None = None,
    ) -> str:
        """Save this conversation, ONLY when the user asks ('save this', 'note this', 'kaydet'); never offer or decide on your own. subject names the note (notes/<subject>.md); content is what to keep, in the user's words where possible. The whole conversation is recorded verbatim and linked from the note.
        :param subject: the note's title
        :param content: what to keep, as markdown
        """  # noqa: E501
        chat_id = str((__metadata__ or {}).get("chat_id") or "")
        if not chat_id:
            return "[STOP] This chat has no id, so it cannot be recorded. Tell the user to save from a saved chat."
        payload = {
            "chat_id": chat_id,
            "messages": _transcript_messages(__messages__ or []),
            "subject": subject,
            "content": content,
        }
        return await self._post("/v1/capture", payload, "save")

    async def _call(self, name: str, args: dict[str, Any], turn: str = "", chat: str = "") -> str:
        return await self._post(f"/v1/tools/{name}", args, name, turn, chat)

    async def _post(self, route: str, payload: dict[str, Any], name: str, turn: str = "", chat: str = "") -> str:
        if not self.valves.api_key:
            return (
                "[STOP] The Sentinel tool has no API key. Tell the user: an admin sets it in the tool's valves "
                "(sentinel openwebui setup does this)."
            )
        url = self.valves.api_url.rstrip("/") + route
        headers = {"Authorization": f"Bearer {self.valves.api_key}"}
        if turn:
            headers["X-Sentinel-Turn"] = turn
        if chat:  # the health line is said once per chat, and again only when it changes
            headers["X-Sentinel-Chat"] = chat
        try:
            async with httpx.AsyncClient(timeout=self.valves.timeout_s) as client:
                response = await client.post(url, json=payload, headers=headers)
        except httpx.HTTPError as exc:
            return f"[STOP] Sentinel's tool API at {url} could not be reached ({exc!r}). Tell the user; do not retry."
        return _result_text(response, name)


def _chat_of(metadata: dict[str, Any] | None) -> str:
    return str((metadata or {}).get("chat_id") or "")


def _turn_of(metadata: dict[str, Any] | None) -> str:
    """One answer being generated: the API answers a repeated search within it with [DONE]."""
    metadata = metadata or {}
    chat_id, message_id = metadata.get("chat_id"), metadata.get("message_id")
    return f"{chat_id}/{message_id}" if chat_id and message_id else ""


def _result_text(response: httpx.Response, name: str) -> str:
    """The model-facing text of an API answer; every failure still starts with a status marker."""
    if response.status_code == 200:
        try:
            return str(response.json()["text"])
        except (ValueError, KeyError, TypeError):
            return f"[STOP] Sentinel's tool API answered {name} without a text field. Tell the user."
    if response.status_code == 401:
        return "[STOP] Sentinel refused the tool's API key. Tell the user: an admin must set a valid key."
    if response.status_code == 403:
        return f"[STOP] The tool's API key may only read; {name} needs a write key. Tell the user."
    if response.status_code == 422:
        return f"[RETRY] Sentinel rejected the arguments of {name}: {_detail(response)}"
    return f"[STOP] Sentinel's tool API failed on {name} ({response.status_code}): {_detail(response)}"


def _detail(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail", response.text)
    except ValueError:
        detail = response.text
    text = str(detail)
    limit = 400
    return text if len(text) <= limit else f"{text[:limit]} [cut at {limit} of {len(text)} characters]"


def _transcript_messages(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The user and assistant turns as plain text: the system prompt and tool traffic are not the conversation."""
    turns = []
    for message in messages:
        role = message.get("role")
        text = _plain_text(message.get("content"))
        if role in ("user", "assistant") and text.strip():
            turns.append({"role": str(role), "content": text})
    return turns


def _plain_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type', 'attachment')} not recorded]")
        return "\n".join(parts)
    return ""
