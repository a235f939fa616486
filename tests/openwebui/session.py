"""Driving a real Open WebUI as its web page does: `sentinel openwebui setup` against it, a signed-in admin
client, and one chat turn with the Sentinel model (tests and bench/toolcalls.py share these)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from click.testing import Result
from typer.testing import CliRunner

from sentinel import prompts
from sentinel.cli import app
from sentinel.keys import Scope, create_key
from sentinel.openwebui_check import ask
from tests.openwebui.servers import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    REPO,
    SentinelInOpenWebUI,
    Server,
    sentinel_in_open_webui,
)
from tests.support.llama import MODEL_ALIAS


def setup_sentinel(
    owui: Server, tool_api_url: str, base_model: str, key: str = "", answers: str = "tools", **extra_env: str
) -> Result:
    """Run ``sentinel openwebui setup`` (tool, valves, the Sentinel model on ``base_model``); fails loudly.
    ``answers``: the Sentinel model's answer mode (tools: the tool loop these tests drive; pipeline: the pipe)."""
    env = {
        "SENTINEL_ANSWER__MODE": answers,
        **extra_env,
        "SENTINEL_OPENWEBUI__ADMIN_EMAIL": ADMIN_EMAIL,
        "SENTINEL_OPENWEBUI__ADMIN_PASSWORD": ADMIN_PASSWORD,
        "SENTINEL_OPENWEBUI__TOOL_API_KEY": key,
        "SENTINEL_OPENWEBUI__TOOL_FILE": str(REPO / "tool" / "openwebui_tool.py"),
        "SENTINEL_OPENWEBUI__SYSTEM_PROMPT_FILE": str(prompts.SYSTEM_PROMPT),
        "SENTINEL_OPENWEBUI__PIPE_FILE": str(REPO / "tool" / "openwebui_pipe.py"),
    }
    command = ["openwebui", "setup", "--url", owui.url, "--base-model", base_model]
    result = CliRunner().invoke(app, [*command, "--tool-api-url", tool_api_url], env=env)
    assert result.exit_code == 0, result.output
    return result


def admin(owui: Server) -> httpx.Client:
    client = httpx.Client(base_url=owui.url, timeout=60)
    signin = {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
    client.headers["Authorization"] = f"Bearer {client.post('/api/v1/auths/signin', json=signin).json()['token']}"
    return client


def chat(
    owui: Server,
    text: str,
    timeout_s: float = 900,
    params: dict[str, Any] | None = None,
    tool_ids: tuple[str, ...] = ("sentinel",),
) -> tuple[str, dict[str, Any]]:
    """One new chat with the Sentinel model, as the web page starts it; returns the chat id and the finished
    assistant message as Open WebUI stored it. ``params``: the chat's model settings (temperature, seed), as the
    page's chat controls send them; ``tool_ids``: the tools picked for the chat (an MCP server is
    ``server:mcp:<id>``). The turn runs through the self-check's own ``ask``, as `make check` runs one."""
    found = ask(admin(owui), "sentinel", text, timeout_s, list(tool_ids), params)
    if found is not None:
        return found
    raise AssertionError(f"the chat turn did not finish within {timeout_s} s; Open WebUI log: {owui.log}")


@contextmanager
def answer_pipe_stack(work: Path) -> Iterator[tuple[SentinelInOpenWebUI, Result]]:
    """Open WebUI, the API and the small model on ``work`` (its ``vault`` folder), the Sentinel model set up in
    auto mode as a new user's ``sentinel openwebui setup`` does; yields the stack and the setup's result."""
    _, key = create_key(work / "keys.json", Scope.WRITE, "open-webui")
    with sentinel_in_open_webui(work, key) as running:
        model_env = {
            "SENTINEL_CONVERSATION__KIND": "openai",
            "SENTINEL_CONVERSATION__BASE_URL": running.model_url,
            "SENTINEL_CONVERSATION__MODEL": MODEL_ALIAS,
        }
        yield running, setup_sentinel(running.owui, running.api.url, MODEL_ALIAS, key, answers="auto", **model_env)
