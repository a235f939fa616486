"""The Sentinel model's chat prefix: the system message and tool schemas Open WebUI puts before every question.

A model server that just started prefills that prefix on the first question (1,863 tokens of the small Qwen on
2 cores: ~15 s); every later question finds it in the server's prompt cache. The warm-up
(``sentinel.openwebui_warm``) sends it once while the stack starts, so the first question finds it cached too.

The prefix must be exactly what Open WebUI sends, byte for byte, or the cache misses. Open WebUI computes the
tool schemas from our tool file at chat time (descriptions from the raw docstrings, reserved parameters dropped)
and may add to the system message, so the prefix is taken from what it really sent, never rebuilt from our
files:

- recorded: the API's gateway, which Open WebUI's chat goes through, writes the prefix of each chat that carries
  the Sentinel system prompt and tools into ``paths.chat_prefix_path`` whenever it changed;
- shipped: ``tool/chat_prefix.json``, recorded from the real Open WebUI by ``make chat-prefix`` for the default
  configuration, so the very first start (nothing recorded yet) is warm too.

The recorded one wins. Either is used only while its system message is the configured prompt
(``openwebui.system_prompt_of``): a prefix of another prompt would only warm what nobody asks.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sentinel.openwebui import SetupError, system_prompt_of
from sentinel.paths import chat_prefix_path
from sentinel.settings import Settings

log = logging.getLogger("sentinel.chat_prefix")


@dataclass(frozen=True)
class ChatPrefix:
    """What comes before the first user message of a chat: its leading (system) messages and its tools."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]

    @classmethod
    def of_request(cls, body: dict[str, Any]) -> ChatPrefix | None:
        """The prefix of an OpenAI chat request: the messages before its first user message and its tools;
        None when it offers no tools or has no user message."""
        messages, tools = body.get("messages"), body.get("tools")
        if not isinstance(messages, list) or not isinstance(tools, list) or not tools:
            return None
        first_user = next((i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user"), None)
        if first_user is None:
            return None
        return cls(messages=list(messages[:first_user]), tools=list(tools))

    @property
    def system_prompt(self) -> str:
        first = self.messages[0] if self.messages else {}
        return str(first.get("content", "")) if first.get("role") == "system" else ""

    def as_json(self) -> str:
        return json.dumps({"messages": self.messages, "tools": self.tools}, ensure_ascii=False, indent=1) + "\n"


class ChatPrefixUnreadable(ValueError):
    """A prefix file that exists but is not a prefix; the message names the file and what to do."""


def read_prefix(path: Path) -> ChatPrefix | None:
    """The prefix stored at ``path``; None when there is no such file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise ChatPrefixUnreadable(
            f"{path} is not a readable chat prefix ({err}): delete it, or run make chat-prefix"
        ) from err
    messages, tools = (data.get("messages"), data.get("tools")) if isinstance(data, dict) else (None, None)
    if not isinstance(messages, list) or not isinstance(tools, list):
        raise ChatPrefixUnreadable(f"{path} lacks the 'messages' and 'tools' lists: delete it, or run make chat-prefix")
    return ChatPrefix(messages=messages, tools=tools)


def write_prefix(path: Path, prefix: ChatPrefix) -> None:
    """Write whole or not at all (a reader never sees half a file): a temporary file beside it, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pending = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pending.write_text(prefix.as_json(), encoding="utf-8")
    os.replace(pending, path)


@dataclass(frozen=True)
class KnownPrefix:
    prefix: ChatPrefix
    origin: str  # where it came from, for the warm-up's line


def prefix_to_warm(settings: Settings) -> KnownPrefix | str:
    """The prefix the next Sentinel chat will send (recorded, else shipped), or why none is known."""
    try:
        prompt = system_prompt_of(settings)
    except SetupError as err:
        return str(err)
    candidates = (
        (chat_prefix_path(settings), "recorded from the last chat"),
        (settings.openwebui.chat_prefix_file, "shipped"),
    )
    stale = []
    for path, origin in candidates:
        try:
            prefix = read_prefix(path)
        except ChatPrefixUnreadable as err:
            stale.append(str(err))
            continue
        if prefix is None:
            continue
        if prefix.system_prompt != prompt:
            stale.append(f"{path} holds another system prompt than {settings.openwebui.system_prompt_file}")
            continue
        return KnownPrefix(prefix, f"{origin}, {path}")
    return "; ".join(stale) or "no chat prefix recorded or shipped"


class PrefixRecorder:
    """The gateway's side: keeps the prefix of the latest chat that carries the Sentinel system prompt, in one
    file, written only when it changed (a chat costs a comparison, not a write). Never fails a chat: a prefix
    that cannot be written is logged once."""

    def __init__(self, settings: Settings) -> None:
        self.path = chat_prefix_path(settings)
        try:
            self._prompt: str | None = system_prompt_of(settings)
        except SetupError as err:
            log.info("chat prefix not recorded: %s", err)
            self._prompt = None
        try:
            known = read_prefix(self.path)
        except ChatPrefixUnreadable:
            known = None
        self._last = known.as_json() if known else ""
        self._failed = False

    def remember(self, body: dict[str, Any]) -> bool:
        """Record the prefix of ``body`` when it is a Sentinel chat and differs from the stored one; whether it
        wrote."""
        if self._prompt is None or self._failed:
            return False
        prefix = ChatPrefix.of_request(body)
        if prefix is None or prefix.system_prompt != self._prompt:
            return False
        text = prefix.as_json()
        if text == self._last:
            return False
        try:
            write_prefix(self.path, prefix)
        except OSError as err:
            self._failed = True
            log.warning("cannot record the chat prefix in %s (%s): the warm-up uses the shipped one", self.path, err)
            return False
        self._last = text
        return True
