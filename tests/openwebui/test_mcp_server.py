"""Sentinel's MCP endpoint in a real Open WebUI: setup registers it as a tool server, chats reach the vault through it.

Open WebUI's own MCP client (the SDK's Streamable HTTP client) connects to the real API's ``/mcp`` with the key
setup put in the valves. The models: a scripted backend (it forces the call, so the test checks what Open WebUI
and Sentinel do with it) and the real small Qwen on llama.cpp behind the API's own gateway (it chooses; the
gateway's repair turns its text calls into calls), as in test_end_to_end.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sentinel.keys import Scope, create_key
from sentinel.mcp.openwebui import SERVER_ID
from tests.openwebui.chat_backends import ChatBackend, ToolCall, scripted
from tests.openwebui.servers import Server, sentinel_in_open_webui
from tests.openwebui.session import admin, chat, setup_sentinel
from tests.support.llama import MODEL_ALIAS

pytestmark = pytest.mark.slow

PRIMITIVES = {"read", "search", "listing", "graph", "write", "relocate", "remove"}
ANSWERS = {"ask"}  # MCP's read-only answer pipeline (sentinel.mcp.ask), offered to every scope
PAGE = "# Maintenance\n\nThe growth queue lists the names that links reach for but no page defines yet.\n"
PREFIX = f"{SERVER_ID}_"  # Open WebUI names an MCP tool <server id>_<tool name>
ANSWER = "The growth queue lists names no page defines yet."
OVER_MCP = (f"server:mcp:{SERVER_ID}",)


@dataclass
class Stack:
    owui: Server
    api: Server
    write_key: str
    read_key: str
    backend: ChatBackend
    api_log: Path


@pytest.fixture(scope="module")
def stack(owui_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("owui-mcp")
    vault = work / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "Maintenance.md").write_text(PAGE)
    _, write_key = create_key(work / "keys.json", Scope.WRITE, label="open-webui")
    _, read_key = create_key(work / "keys.json", Scope.READ, label="open-webui read")
    backend = scripted("scripted-mcp", [ToolCall(PREFIX + "search", {"query": "growth queue"})], ANSWER)
    with sentinel_in_open_webui(work, write_key, [backend]) as up:
        yield Stack(up.owui, up.api, write_key, read_key, backend, up.api_log)


def setup_output(stack: Stack, key: str, base_model: str = "scripted-mcp") -> str:
    """``sentinel openwebui setup``: the tool, the Sentinel model over ``base_model``, and the MCP tool server."""
    return setup_sentinel(stack.owui, stack.api.url, base_model, key).output


def mcp_turn(stack: Stack, question: str, timeout_s: float = 900, **params: Any) -> dict[str, Any]:
    """One new chat with the Sentinel model, offered only Sentinel's MCP tools; the finished assistant message."""
    return chat(stack.owui, question, timeout_s, params, tool_ids=OVER_MCP)[1]


def offered(backend: ChatBackend) -> set[str]:
    return {tool["function"]["name"] for tool in backend.tool_requests()[-1]["tools"]}


def tool_results(backend: ChatBackend) -> list[str]:
    return [m["content"] for m in backend.tool_requests()[-1]["messages"] if m["role"] == "tool"]


def test_setup_registers_the_mcp_server_once(stack: Stack) -> None:
    assert f"MCP tool server '{SERVER_ID}' created ({stack.api.url}/mcp)" in setup_output(stack, stack.write_key)
    assert f"MCP tool server '{SERVER_ID}' updated" in setup_output(stack, stack.write_key)
    servers = admin(stack.owui).get("/api/v1/configs/tool_servers").json()["TOOL_SERVER_CONNECTIONS"]
    ours = [s for s in servers if (s.get("info") or {}).get("id") == SERVER_ID]
    assert len(ours) == 1 and ours[0]["url"] == f"{stack.api.url}/mcp" and ours[0]["type"] == "mcp"


def test_a_chat_searches_the_vault_through_mcp(stack: Stack) -> None:
    setup_output(stack, stack.write_key)
    backend = stack.backend
    message = mcp_turn(stack, "What is the growth queue?")
    assert ANSWER in message["content"]
    assert offered(backend) == {PREFIX + name for name in PRIMITIVES | ANSWERS}
    (result,) = tool_results(backend)
    assert result.startswith("[OK]") and "Maintenance (" in result  # only Sentinel's search says this


def test_a_read_key_offers_the_model_only_the_read_tools(stack: Stack) -> None:
    setup_output(stack, stack.read_key)
    try:
        mcp_turn(stack, "What is the growth queue?")
        assert offered(stack.backend) == {PREFIX + name for name in ("read", "search", "listing", "graph", "ask")}
    finally:
        setup_output(stack, stack.write_key)


@pytest.mark.timeout(2400)  # a real model on two shared cores
def test_the_real_small_model_calls_a_tool_through_mcp(stack: Stack) -> None:
    """Lenient about which tool Qwen picks; strict that its call went over MCP to the API and what came back."""
    setup_output(stack, stack.write_key, base_model=MODEL_ALIAS)
    before = len(stack.api_log.read_text().splitlines())
    message = mcp_turn(stack, "Search my vault: what is the growth queue?", 2100, temperature=0, seed=1, max_tokens=300)
    lines = [json.loads(line) for line in stack.api_log.read_text().splitlines()[before:] if line.startswith("{")]
    calls = [line for line in lines if line.get("message") == "tool"]
    assert calls, f"no tool call of Qwen's reached the API over MCP; Open WebUI kept: {message['content']!r}"
    assert all(call["tool"] in PRIMITIVES and call["marker"].startswith("[") for call in calls), calls
