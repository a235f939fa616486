"""`sentinel chat` as a child process against the small Qwen on llama.cpp: the test and the recorded session
(bench/chat_session.py) run the same command line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sentinel.settings import Settings
from tests.support.llama import MODEL_ALIAS

SMALL_MODEL_PROMPT = Path(__file__).resolve().parents[1] / "chat" / "small_model_prompt.txt"
# One tool call a turn and short replies: the small model on two cores answers in minutes, not tens of them.
CHAT_LIMITS = {"SENTINEL_CHAT__MAX_TOOL_CALLS": "1", "SENTINEL_CHAT__REPLY_TOKENS": "200"}


def chat_env(columns: int, **more: str) -> dict[str, str]:
    """This environment without any SENTINEL_ setting of the caller's, plus the terminal width and the limits."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SENTINEL_")}
    return env | {"COLUMNS": str(columns)} | CHAT_LIMITS | more


def chat_command(settings: Settings, base_url: str, num_ctx: int, *more: str) -> list[str]:
    """The `sentinel chat` command line for the vault and index of ``settings`` and the model at ``base_url``."""
    return [
        str(Path(sys.executable).with_name("sentinel")),
        "chat",
        f"--vault={settings.vault}",
        f"--index={settings.index_path}",
        "--provider=openai",
        f"--base-url={base_url}",
        f"--model={MODEL_ALIAS}",
        f"--num-ctx={num_ctx}",
        "--temperature=0",
        f"--system-prompt={SMALL_MODEL_PROMPT}",
        *more,
    ]
