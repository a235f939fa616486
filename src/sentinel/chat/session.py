"""One conversation at the terminal: its history, its turns, its usage, and the state the commands read.

Tool calls go through ``sentinel.tools.registry.run_tool``, the same function the API serves, so the output
policy, argument checks, the repeated-search rule and the health line are the ones Open WebUI's model meets.
``/save`` goes through ``capture``, the function behind the API's capture route.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sentinel.chat.accounting import Budget, CallUsage, SchemaCost, Usage, budget, usage_of
from sentinel.chat.control import TurnControl
from sentinel.chat.loop import OnStep, Turn, run_turn
from sentinel.prompts import read_prompt
from sentinel.providers import ChatProvider, Message
from sentinel.settings import Settings
from sentinel.tools.capture import capture
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import ToolResult
from sentinel.tools.registry import ToolOutput, run_tool, tool_schemas

# What differs at the terminal from Open WebUI, where the system prompt was written for: saving is the user's
# command here, not a tool.
HARNESS_NOTE = (
    "\n\nThis conversation runs in the sentinel chat terminal. The user saves it with the /save command; "
    "you have no save tool and never need to offer one."
)


def system_prompt_of(settings: Settings) -> str:
    """The system prompt Open WebUI's Sentinel model gets (or the one chat.system_prompt_file names), with the
    terminal's difference appended."""
    if settings.chat.system_prompt_file is not None:
        path, setting = settings.chat.system_prompt_file, "SENTINEL_CHAT__SYSTEM_PROMPT_FILE"
    else:
        path, setting = settings.openwebui.system_prompt_file, "SENTINEL_OPENWEBUI__SYSTEM_PROMPT_FILE"
    return read_prompt(path, setting, settings.folders) + HARNESS_NOTE


def transcript_messages(messages: list[Message]) -> list[dict[str, str]]:
    """The user and assistant turns as text, as Open WebUI's tool sends them to capture: the system prompt and
    the tool traffic are not the conversation."""
    return [
        {"role": str(message["role"]), "content": str(message.get("content") or "")}
        for message in messages
        if message.get("role") in ("user", "assistant") and str(message.get("content") or "").strip()
    ]


def _new_chat_id() -> str:
    return f"cli-{uuid.uuid4().hex[:12]}"


@dataclass
class ChatSession:
    ctx: ToolContext
    provider: ChatProvider
    system_prompt: str
    schema_cost: SchemaCost
    temperature: float | None = None  # None: the server's sampling, as for any conversation role
    chat_id: str = field(default_factory=_new_chat_id)
    messages: list[Message] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)  # every turn since start, across resets
    context_turns: list[Turn] = field(default_factory=list)  # the turns the current context holds

    def __post_init__(self) -> None:
        self.schemas = tool_schemas(self.ctx.settings.folders)
        self.messages = self.messages or [{"role": "system", "content": self.system_prompt}]

    def _run_tool(self, name: str, arguments: dict[str, Any], turn_id: str) -> ToolOutput:
        return run_tool(self.ctx, name, arguments, turn_id, chat=self.chat_id)

    def ask(self, question: str, on_step: OnStep | None = None) -> Turn:
        """One turn. On a provider error the history is left as it was before the question."""
        chat = self.ctx.settings.chat
        pending = [*self.messages, {"role": "user", "content": question}]
        number = len(self.turns) + 1
        turn = run_turn(
            self.provider,
            pending,
            self.schemas,
            self._run_tool,
            TurnControl(chat.max_tool_calls, chat.retries_per_tool),
            number=number,
            turn_id=f"{self.chat_id}/{number}",
            reply_tokens=chat.reply_tokens,
            temperature=self.temperature,
            on_step=on_step,
        )
        self.messages = pending
        self.turns.append(turn)
        self.context_turns.append(turn)
        return turn

    @property
    def last_turn(self) -> Turn | None:
        return self.context_turns[-1] if self.context_turns else None

    def _calls(self, turns: list[Turn]) -> list[CallUsage]:
        return [call for turn in turns for call in turn.calls]

    def session_usage(self) -> Usage:
        return usage_of(self._calls(self.turns))

    def budget(self) -> Budget:
        calls = self._calls(self.context_turns)
        return budget(self.provider.num_ctx, calls[-1] if calls else None, self.schema_cost)

    def reset(self) -> None:
        """A new context: the history goes, and a later /save records a new conversation. Session totals stay."""
        self.chat_id = _new_chat_id()
        self.messages = [{"role": "system", "content": self.system_prompt}]
        self.context_turns = []

    def save(self, subject: str, content: str | None = None) -> ToolResult:
        """Capture this conversation as the API's capture route does. ``content`` defaults to the last answer."""
        kept = content if content is not None else (self.last_turn.answer if self.last_turn else "")
        return capture(self.ctx, self.chat_id, transcript_messages(self.messages), subject, kept)
