"""The seven primitives over MCP, with the SDK's own client against both transports.

Streamable HTTP: the real API (uvicorn on loopback) with read and write keys. stdio: ``sentinel mcp`` as a child
process, as a desktop agent starts it. Both handshakes are exercised: the initialize handshake most clients speak
today ("legacy") and the SDK's newer discover-first one ("auto").
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

import sentinel
from mcp import Client
from sentinel import prompts
from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.settings import Settings
from sentinel.tools.registry import TOOLS
from services.api.app import create_app
from tests.support.embedder import E5_DIR
from tests.support.servers import serve
from tests.support.vault import WriteVault

FILES = {
    "notes/Growth queue.md": "# Growth queue\nThe growth queue lists names that no page answers to. See [[Index]].\n",
    "notes/Index.md": "# Index\nThe index is derived from the vault and rebuilt at any time.\n",
    "notes/Third.md": "# Third\nA third page, so that a listing of two per page is cut.\n",
    "conversations/2026-01-01-1.md": "---\nchat_id: old\n---\n## user\nhello\n",
}
SOURCES = Path(sentinel.__file__).resolve().parents[1]  # src/
READ_TOOLS = {"read", "search", "listing", "graph"}
ANSWERS = {"ask"}  # the answer pipeline, read-only, for every scope (sentinel.mcp.ask)
MODES = ["legacy", "auto"]


@dataclass
class Api:
    url: str
    settings: Settings
    write_key: str
    read_key: str


@pytest.fixture
def api(vault_settings: WriteVault) -> Iterator[Api]:
    settings = vault_settings(FILES)
    settings.list_page_size = 2
    _, write_key = create_key(keys_path(settings), Scope.WRITE, "test")
    _, read_key = create_key(keys_path(settings), Scope.READ, "test")
    with serve(create_app(settings)) as url:
        yield Api(url, settings, write_key, read_key)


def http_client(api: Api, key: str, mode: str = "legacy") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
    return Client(streamable_http_client(f"{api.url}/mcp", http_client=http), mode=mode)


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def run(client: Client, work: Any) -> Any:
    """Open the client, run ``work(client)``, close it; from synchronous test code."""

    async def main() -> Any:
        async with client:
            return await work(client)

    return anyio.run(main)


@pytest.mark.parametrize("mode", MODES)
def test_a_read_key_lists_the_read_tools_with_their_hints_and_the_registry_descriptions(api: Api, mode: str) -> None:
    async def names(client: Client) -> list[types.Tool]:
        return (await client.list_tools()).tools

    read_tools = run(http_client(api, api.read_key, mode), names)
    assert {tool.name for tool in read_tools} == READ_TOOLS | ANSWERS
    write_tools = {tool.name: tool for tool in run(http_client(api, api.write_key, mode), names)}
    assert set(write_tools) == set(TOOLS) | ANSWERS
    del write_tools["ask"]
    for name, tool in write_tools.items():
        # one source: the registry, which the Open WebUI tool file is held equal to (tests/openwebui)
        assert tool.description == TOOLS[name].description
        assert tool.input_schema == TOOLS[name].parameters
        hints = tool.annotations
        assert hints is not None and hints.open_world_hint is False
        # as a client reads them, the protocol's defaults filled in: read-only False, destructive and open world
        # True, idempotent False
        assert (hints.read_only_hint or False) is (name in READ_TOOLS), name
        if name not in READ_TOOLS:
            destructive = True if hints.destructive_hint is None else hints.destructive_hint
            assert destructive is TOOLS[name].destructive, name
            assert bool(hints.idempotent_hint) is TOOLS[name].idempotent, name
    assert TOOLS["remove"].destructive and TOOLS["write"].destructive and not TOOLS["relocate"].destructive
    assert TOOLS["remove"].idempotent and not TOOLS["write"].idempotent


def test_every_tool_runs_over_http_with_a_write_key(api: Api) -> None:
    async def work(client: Client) -> dict[str, str]:
        out = {}
        out["search"] = text_of(await client.call_tool("search", {"query": "growth queue", "rung": "body"}))
        out["read"] = text_of(await client.call_tool("read", {"path": "notes/Index.md"}))
        out["graph"] = text_of(await client.call_tool("graph", {"target": "notes/Growth queue.md"}))
        out["write"] = text_of(await client.call_tool("write", {"path": "notes/New.md", "content": "# New\nfresh\n"}))
        out["relocate"] = text_of(
            await client.call_tool("relocate", {"source": "notes/New.md", "destination": "notes/Newer.md"})
        )
        out["remove"] = text_of(await client.call_tool("remove", {"path": "notes/Newer.md"}))
        return out

    out = run(http_client(api, api.write_key), work)
    assert out["search"].startswith("[OK]") and "notes/Growth queue.md" in out["search"]
    assert out["read"].startswith("[OK → next] notes/Index.md")
    assert out["graph"].startswith("[OK]") and "Index" in out["graph"]
    for name in ("write", "relocate", "remove"):
        assert out[name].startswith("[OK]"), out[name]
    assert not (api.settings.vault / "notes/New.md").exists()
    assert not (api.settings.vault / "notes/Newer.md").exists()


@pytest.mark.parametrize("mode", MODES)
def test_a_cut_listing_carries_its_continuation_as_data(api: Api, mode: str) -> None:
    async def work(client: Client) -> tuple[types.CallToolResult, types.CallToolResult]:
        first = await client.call_tool("listing", {"folder": "notes"})
        assert first.structured_content is not None
        then = first.structured_content["continuation"]
        return first, await client.call_tool(then["tool"], then["arguments"])

    first, second = run(http_client(api, api.read_key, mode), work)
    assert text_of(first).startswith("[more]") and first.structured_content == {
        "status": "[more]",
        "continuation": {"tool": "listing", "arguments": {"folder": "notes", "filter": "", "cursor": 2}},
    }
    # the text offers exactly the call the data describes
    assert 'listing(folder="notes", filter="", cursor=2)' in text_of(first)
    assert text_of(second).startswith("[OK]") and "notes/Third.md" in text_of(second)
    assert second.structured_content is None  # nothing beyond the text: the status is its first word


def test_a_read_key_is_refused_a_write_tool_before_anything_runs(api: Api) -> None:
    async def work(client: Client) -> types.CallToolResult:
        return await client.call_tool("write", {"path": "notes/Forged.md", "content": "forged"})

    refused = run(http_client(api, api.read_key), work)
    assert refused.is_error and text_of(refused).startswith("[STOP] write needs a write key")
    assert not (api.settings.vault / "notes/Forged.md").exists()


def test_bad_paths_and_arguments_get_status_text_not_errors(api: Api) -> None:
    async def work(client: Client) -> list[str]:
        return [
            text_of(await client.call_tool("read", {"path": "../../etc/passwd"})),
            text_of(await client.call_tool("read", {"path": "notes/Missing.md"})),
            text_of(await client.call_tool("search", {"query": "x", "rung": "sideways"})),
            text_of(await client.call_tool("nonesuch", {})),
        ]

    outside, missing, bad_rung, unknown = run(http_client(api, api.write_key), work)
    assert outside.startswith(("[STOP]", "[RETRY]")) and "inside the vault" in outside
    assert missing.startswith("[RETRY]") and "notes/Missing.md" in missing
    assert bad_rung.startswith("[RETRY]") and "rung" in bad_rung
    assert unknown.startswith("[RETRY]") and "there is no tool 'nonesuch'" in unknown


def test_no_key_or_an_unknown_key_is_401(api: Api) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream"}
    assert httpx.post(f"{api.url}/mcp", json=ping, headers=accept).status_code == 401
    refused = httpx.post(f"{api.url}/mcp", json=ping, headers={**accept, "Authorization": "Bearer snt_wrong"})
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"


def test_a_connection_dropped_mid_call_leaves_the_server_serving(api: Api) -> None:
    call = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "index derived vault", "rung": "body"}},
        }
    ).encode()
    host, port = api.url.removeprefix("http://").split(":")
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {api.read_key}\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(call)}\r\n\r\n"
    ).encode()
    for _ in range(5):  # the client sends the call and goes away before any answer, every time
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(head + call)

    async def work(client: Client) -> str:
        return text_of(await client.call_tool("search", {"query": "index derived vault"}))

    assert run(http_client(api, api.read_key), work).startswith("[OK]")


def test_resources_and_the_ladder_prompt(api: Api) -> None:
    async def work(client: Client) -> tuple[list[str], str, str]:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        folders = (await client.read_resource("sentinel://folders")).contents[0]
        prompt = (await client.get_prompt("ladder")).messages[0].content
        assert isinstance(folders, types.TextResourceContents) and isinstance(prompt, types.TextContent)
        return uris, folders.text, prompt.text

    uris, folders, prompt = run(http_client(api, api.read_key), work)
    assert uris == ["sentinel://health", "sentinel://folders"]
    assert "conversations/ (conversations)" in folders and "wiki/ (wiki)" in folders
    assert "[more]" in prompt  # the ladder's status markers, from the system prompt Open WebUI uses too


def stdio_client(settings: Settings, *extra: str, cwd: Path | None = None) -> Client:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENTINEL_")}
    env |= {
        "SENTINEL_VAULT": str(settings.vault),
        "SENTINEL_INDEX_PATH": str(settings.index_path),
        "SENTINEL_EMBED_MODEL_DIR": str(E5_DIR),
        # These sources, wherever the child starts (a relative PYTHONPATH would mean another folder there).
        "PYTHONPATH": os.pathsep.join([str(SOURCES), str(SOURCES.parent)]),
    }
    command = str(Path(sys.executable).with_name("sentinel"))
    return Client(StdioServerParameters(command=command, args=["mcp", *extra], env=env, cwd=cwd or os.getcwd()))


def test_stdio_started_outside_the_repository_serves_the_ladder_prompt(
    vault_settings: WriteVault, tmp_path: Path
) -> None:
    """A desktop agent starts ``sentinel mcp`` in whatever folder it likes: the prompt ships with the package."""
    settings = vault_settings(FILES)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def main() -> str:
        async with stdio_client(settings, cwd=elsewhere) as session:
            prompt = (await session.get_prompt("ladder")).messages[0].content
            assert isinstance(prompt, types.TextContent)
            return prompt.text

    text = anyio.run(main)
    assert text == prompts.read_prompt(prompts.SYSTEM_PROMPT, "unused") and "[more]" in text


def _stdio_session(client: AbstractAsyncContextManager[Client]) -> tuple[set[str], str, str]:
    async def main() -> tuple[set[str], str, str]:
        async with client as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            found = text_of(await session.call_tool("search", {"query": "growth queue"}))
            write = text_of(await session.call_tool("write", {"path": "notes/Via stdio.md", "content": "hi"}))
            return names, found, write

    return anyio.run(main)


def test_stdio_is_read_only_unless_started_with_write(vault_settings: WriteVault) -> None:
    settings = vault_settings(FILES)
    names, found, write = _stdio_session(stdio_client(settings))
    assert names == READ_TOOLS | ANSWERS
    assert found.startswith("[OK]") and "Growth queue (" in found  # the page's date rides on its line
    assert write.startswith("[STOP]") and not (settings.vault / "notes/Via stdio.md").exists()

    names, _, write = _stdio_session(stdio_client(settings, "--write"))
    assert names == set(TOOLS) | ANSWERS
    assert write.startswith("[OK]") and (settings.vault / "notes/Via stdio.md").read_text() == "hi\n"


def test_ask_answers_from_the_vault_and_never_saves(api: Api) -> None:
    async def work(client: Client) -> tuple[types.CallToolResult, types.CallToolResult]:
        question = await client.call_tool("ask", {"question": "What is the growth queue?"})
        save = await client.call_tool("ask", {"question": "save this: the growth queue is long"})
        return question, save

    question, save = run(http_client(api, api.write_key), work)
    answer = question.structured_content or {}
    assert "notes/Growth queue.md" in [c["path"] for c in answer["citations"]]
    assert "Sources:" in text_of(question)
    assert (save.structured_content or {})["intent"] == "save"
    assert "read-only" in text_of(save)


def test_the_scope_boundary_holds_over_mcp(vault_settings: WriteVault) -> None:
    """A personal page that repeats the question's words stays out of search and listing over MCP until the query
    asks for its scope (sentinel.search.scope)."""
    diary = "---\nscope: personal\n---\n# Growth diary\nThe growth queue, the growth queue: it worried me.\n"
    settings = vault_settings({**FILES, "notes/Growth diary.md": diary})
    _, read_key = create_key(keys_path(settings), Scope.READ, "test")

    async def work(client: Client) -> tuple[str, str, str]:
        general = text_of(await client.call_tool("search", {"query": "growth queue"}))
        asked = text_of(await client.call_tool("search", {"query": "growth queue scope:personal"}))
        listed = text_of(await client.call_tool("listing", {"folder": "notes"}))
        return general, asked, listed

    with serve(create_app(settings)) as url:
        general, asked, listed = run(http_client(Api(url, settings, "", read_key), read_key), work)
    assert "Growth queue" in general and "Growth diary" not in general and "left out" in general
    assert "Growth diary" in asked
    assert "notes/Growth diary.md" not in listed and "notes/Growth queue.md" in listed


def test_a_key_limited_to_scopes_never_reaches_them_even_when_asked(vault_settings: WriteVault) -> None:
    """A key made with kept_out=personal: asking scope:personal brings nothing back, and reading the page by its
    path is refused, over MCP and over the REST tools and the search page's route; an unlimited key still can."""
    diary = "---\nscope: personal\n---\n# Growth diary\nThe growth queue, the growth queue: it worried me. [[Index]]\n"
    settings = vault_settings({**FILES, "notes/Growth diary.md": diary})
    _, limited = create_key(keys_path(settings), Scope.READ, "agent", kept_out=("Personal",))
    _, full = create_key(keys_path(settings), Scope.READ, "me")

    async def work(client: Client) -> tuple[str, str]:
        asked = text_of(await client.call_tool("search", {"query": "growth queue scope:personal"}))
        read = text_of(await client.call_tool("read", {"path": "notes/Growth diary.md", "depth": "page"}))
        graph = text_of(await client.call_tool("graph", {"target": "notes/Index.md"}))
        return asked + graph, read

    with serve(create_app(settings)) as url:
        asked, read = run(http_client(Api(url, settings, "", limited), limited), work)
        full_asked, full_read = run(http_client(Api(url, settings, "", full), full), work)
        rest = httpx.post(
            f"{url}/v1/tools/read",
            json={"path": "notes/Growth diary.md", "depth": "page"},
            headers={"Authorization": f"Bearer {limited}"},
        ).json()["text"]
        page = httpx.post(
            f"{url}/v1/search",
            json={"query": "scope:personal", "mode": "facet"},
            headers={"Authorization": f"Bearer {limited}"},
        ).json()["hits"]
    assert "Growth diary" not in asked and read.startswith("[STOP]") and "may not reach" in read
    assert rest.startswith("[STOP]") and page == []
    assert "Growth diary" in full_asked and "it worried me" in full_read


def test_stdio_with_keep_out_never_reaches_that_scope(vault_settings: WriteVault) -> None:
    diary = "---\nscope: personal\n---\n# Growth diary\nThe growth queue, the growth queue: it worried me.\n"
    settings = vault_settings({**FILES, "notes/Growth diary.md": diary})

    async def main() -> tuple[str, str]:
        async with stdio_client(settings, "--keep-out", "personal") as session:
            asked = text_of(await session.call_tool("search", {"query": "growth queue scope:personal"}))
            read = text_of(await session.call_tool("read", {"path": "notes/Growth diary.md", "depth": "page"}))
            return asked, read

    asked, read = anyio.run(main)
    assert "Growth diary" not in asked and read.startswith("[STOP]")


def test_a_failure_of_the_product_is_an_error_result_that_names_its_kind(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MCP's one translation (``sentinel.mcp.server``): a ``SentinelError`` is an error result with its words."""
    from sentinel.embed.base import EmbedderUnavailable
    from sentinel.mcp import server

    def down(*_: Any) -> Any:
        raise EmbedderUnavailable("the embedder at http://127.0.0.1:9 does not answer")

    monkeypatch.setattr(server, "run_tool", down)

    async def work(client: Client) -> types.CallToolResult:
        return await client.call_tool("search", {"query": "growth queue"})

    failed = run(http_client(api, api.read_key), work)
    assert failed.is_error
    assert text_of(failed) == "unavailable: the embedder at http://127.0.0.1:9 does not answer"
