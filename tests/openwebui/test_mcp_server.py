"""Sentinel's MCP endpoint in a real Open WebUI: setup registers it as a tool server, chats reach the vault through it.

Open WebUI's own MCP client (it uses the SDK's Streamable HTTP client) connects to the real API's ``/mcp`` with the
key setup put in the valves; the model backends are a scripted one (forces the call, so the test checks what
Open WebUI and Sentinel do with it) and the real small Qwen on llama.cpp (it chooses).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.keys import Scope, create_key
from sentinel.mcp.openwebui import SERVER_ID
from tests.openwebui.chat_backends import ChatBackend, ToolCall, lenient_llama, scripted
from tests.openwebui.servers import ADMIN_EMAIL, ADMIN_PASSWORD, REPO, Server, open_webui, sentinel_api
from tests.support.llama import MODEL_ALIAS, llama_server

pytestmark = pytest.mark.slow

PRIMITIVES = {"read", "search", "listing", "graph", "write", "relocate", "remove"}
PAGE = "# Maintenance\n\nThe growth queue lists the names that links reach for but no page defines yet.\n"
PREFIX = f"{SERVER_ID}_"  # Open WebUI names an MCP tool <server id>_<tool name>
ANSWER = "The growth queue lists names no page defines yet."


@dataclass
class Stack:
    owui: Server
    api: Server
    write_key: str
    read_key: str
    backends: dict[str, ChatBackend]


@pytest.fixture(scope="module")
def stack(owui_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("owui-mcp")
    vault = work / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "Maintenance.md").write_text(PAGE)
    _, write_key = create_key(work / "keys.json", Scope.WRITE, label="open-webui")
    _, read_key = create_key(work / "keys.json", Scope.READ, label="open-webui read")
    search = ToolCall(PREFIX + "search", {"query": "growth queue"})
    backends = {"scripted-mcp": scripted("scripted-mcp", [search], ANSWER)}
    with ExitStack() as running:
        api = running.enter_context(sentinel_api(vault, work / "index.db", work / "keys.json", work / "api.log"))
        llama = running.enter_context(llama_server(ctx=8192))
        backends[MODEL_ALIAS] = lenient_llama(MODEL_ALIAS, llama, max_calls=1)
        for backend in backends.values():
            running.enter_context(backend)
        urls = [backend.root + "/v1" for backend in backends.values()]
        owui = running.enter_context(open_webui(work / "open-webui", urls, []))
        yield Stack(owui, api, write_key, read_key, backends)


def admin(stack: Stack) -> httpx.Client:
    client = httpx.Client(base_url=stack.owui.url, timeout=60)
    signin = {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
    client.headers["Authorization"] = f"Bearer {client.post('/api/v1/auths/signin', json=signin).json()['token']}"
    return client


def setup_output(stack: Stack, key: str, base_model: str = "scripted-mcp") -> str:
    """``sentinel openwebui setup``: the tool, the Sentinel model over ``base_model`` (native tool calls), and the
    MCP tool server, all with ``key``."""
    env = {
        "SENTINEL_OPENWEBUI__ADMIN_EMAIL": ADMIN_EMAIL,
        "SENTINEL_OPENWEBUI__ADMIN_PASSWORD": ADMIN_PASSWORD,
        "SENTINEL_OPENWEBUI__TOOL_API_KEY": key,
        "SENTINEL_OPENWEBUI__TOOL_FILE": str(REPO / "tool" / "openwebui_tool.py"),
        "SENTINEL_OPENWEBUI__SYSTEM_PROMPT_FILE": str(REPO / "tool" / "system_prompt.txt"),
    }
    command = ["openwebui", "setup", "--url", stack.owui.url, "--base-model", base_model]
    result = CliRunner().invoke(app, [*command, "--tool-api-url", stack.api.url], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def mcp_turn(stack: Stack, question: str, timeout_s: float = 900) -> dict[str, Any]:
    """One new chat with the Sentinel model, offered only Sentinel's MCP tools; the finished assistant message."""
    client = admin(stack)
    assistant_id = str(uuid.uuid4())
    body = {
        "model": "sentinel",
        "stream": True,
        "parent_id": None,
        "id": assistant_id,
        "tool_ids": [f"server:mcp:{SERVER_ID}"],
        "user_message": {"id": str(uuid.uuid4()), "role": "user", "content": question, "parentId": None},
        "messages": [{"role": "user", "content": question}],
    }
    assert client.post("/api/chat/completions", json=body, timeout=timeout_s).status_code == 200
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for listed in client.get("/api/v1/chats/").json():
            message = (
                client.get(f"/api/v1/chats/{listed['id']}").json()["chat"]["history"]["messages"].get(assistant_id)
            )
            if message and message.get("done"):
                return dict(message)
        time.sleep(1)
    raise AssertionError(f"the turn did not finish within {timeout_s} s; Open WebUI log: {stack.owui.log}")


def offered(backend: ChatBackend) -> set[str]:
    return {tool["function"]["name"] for tool in backend.tool_requests()[-1]["tools"]}


def tool_results(backend: ChatBackend) -> list[str]:
    return [m["content"] for m in backend.tool_requests()[-1]["messages"] if m["role"] == "tool"]


def test_setup_registers_the_mcp_server_once(stack: Stack) -> None:
    assert f"MCP tool server '{SERVER_ID}' created ({stack.api.url}/mcp)" in setup_output(stack, stack.write_key)
    assert f"MCP tool server '{SERVER_ID}' updated" in setup_output(stack, stack.write_key)
    servers = admin(stack).get("/api/v1/configs/tool_servers").json()["TOOL_SERVER_CONNECTIONS"]
    ours = [s for s in servers if (s.get("info") or {}).get("id") == SERVER_ID]
    assert len(ours) == 1 and ours[0]["url"] == f"{stack.api.url}/mcp" and ours[0]["type"] == "mcp"


def test_a_chat_searches_the_vault_through_mcp(stack: Stack) -> None:
    setup_output(stack, stack.write_key)
    backend = stack.backends["scripted-mcp"]
    message = mcp_turn(stack, "What is the growth queue?")
    assert ANSWER in message["content"]
    assert offered(backend) == {PREFIX + name for name in PRIMITIVES}
    (result,) = tool_results(backend)
    assert result.startswith("[OK]") and "notes/Maintenance.md" in result  # only Sentinel's search says this


def test_a_read_key_offers_the_model_only_the_read_tools(stack: Stack) -> None:
    setup_output(stack, stack.read_key)
    try:
        mcp_turn(stack, "What is the growth queue?")
        assert offered(stack.backends["scripted-mcp"]) == {
            PREFIX + name for name in ("read", "search", "listing", "graph")
        }
    finally:
        setup_output(stack, stack.write_key)


@pytest.mark.timeout(2400)  # a real model on two shared cores
def test_the_real_small_model_calls_search_through_mcp(stack: Stack) -> None:
    setup_output(stack, stack.write_key, base_model=MODEL_ALIAS)
    backend = stack.backends[MODEL_ALIAS]
    message = mcp_turn(stack, "Search my vault: what is the growth queue?", timeout_s=2100)
    last = backend.tool_requests()[-1]["messages"]
    calls = [c["function"]["name"] for m in last if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert calls, f"Qwen made no tool call through MCP; it answered: {message['content']!r}"
    assert all(name.startswith(PREFIX) for name in calls), calls
    results = tool_results(backend)
    assert len(results) == len(calls) and all(r.startswith(("[OK", "[DONE]", "[RETRY]", "[more]")) for r in results)
