"""The tool file's own behaviour against the real tool API: every answer, failures included, starts with a status.

Open WebUI is not needed for this: the file's Tools class is plain Python (pydantic and httpx), loaded here by
path, and called the way Open WebUI calls it, reserved arguments included.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sentinel.keys import Scope, create_key
from tests.openwebui.servers import REPO, Server, sentinel_api
from tests.support.servers import free_port

PAGE = "---\ntype: note\n---\n# Maintenance\n\nThe growth queue lists names no page defines yet.\n"


def load_tool_file() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sentinel_openwebui_tool", REPO / "tool" / "openwebui_tool.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tools_with(api_url: str, api_key: str) -> Any:
    tools = load_tool_file().Tools()
    tools.valves = tools.Valves(api_url=api_url, api_key=api_key)
    return tools


@dataclass
class Api:
    server: Server
    vault: Path
    write_key: str
    read_key: str


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    work = tmp_path_factory.mktemp("tool-client")
    vault = work / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "Maintenance.md").write_text(PAGE)
    _, write_key = create_key(work / "keys.json", Scope.WRITE)
    _, read_key = create_key(work / "keys.json", Scope.READ)
    with sentinel_api(vault, work / "index.db", work / "keys.json", work / "api.log") as server:
        yield Api(server, vault, write_key, read_key)


def test_search_returns_the_api_text(api: Api) -> None:
    text = asyncio.run(tools_with(api.server.url, api.read_key).search("growth queue"))
    assert text.startswith("[") and "Maintenance (" in text


def test_a_repeated_search_in_one_turn_is_done(api: Api) -> None:
    tools = tools_with(api.server.url, api.read_key)
    turn = {"chat_id": "chat-1", "message_id": "answer-1"}
    asyncio.run(tools.search("growth queue", __metadata__=turn))
    assert asyncio.run(tools.search("growth queue", __metadata__=turn)).startswith("[DONE]")


def test_a_read_key_cannot_write(api: Api) -> None:
    text = asyncio.run(tools_with(api.server.url, api.read_key).write("notes/New.md", "text"))
    assert text.startswith("[STOP]") and "write key" in text
    assert not (api.vault / "notes" / "New.md").exists()


def test_an_unknown_key_is_a_stop(api: Api) -> None:
    text = asyncio.run(tools_with(api.server.url, "snt_not-a-key").graph("Maintenance"))
    assert text.startswith("[STOP]") and "API key" in text


def test_bad_arguments_are_a_retry(api: Api) -> None:
    text = asyncio.run(tools_with(api.server.url, api.read_key).read("notes/Maintenance.md", depth="everything"))
    assert text.startswith("[RETRY]"), text


def test_no_key_and_no_api_are_stops() -> None:
    assert asyncio.run(tools_with("http://127.0.0.1:1", "").search("x")).startswith("[STOP] The Sentinel tool has no")
    unreachable = f"http://127.0.0.1:{free_port()}"
    text = asyncio.run(tools_with(unreachable, "snt_x").search("x"))
    assert text.startswith("[STOP]") and unreachable in text


def test_save_records_the_conversation_without_the_system_prompt(api: Api) -> None:
    messages = [
        {"role": "system", "content": "You answer from the vault."},
        {"role": "user", "content": [{"type": "text", "text": "What is the growth queue?"}]},
        {"role": "assistant", "content": "Names no page defines yet."},
        {"role": "tool", "content": "[OK] search result"},
        {"role": "user", "content": "kaydet"},
    ]
    tools = tools_with(api.server.url, api.write_key)
    metadata = {"chat_id": "chat-save-1", "message_id": "answer-2"}
    text = asyncio.run(tools.save("Growth queue", "Names no page defines yet.", messages, metadata))
    assert text.startswith("[OK"), text
    transcript = next((api.vault / "conversations").glob("*.md")).read_text()
    assert "chat-save-1" in transcript and "What is the growth queue?" in transcript and "kaydet" in transcript
    assert "You answer from the vault." not in transcript and "[OK] search result" not in transcript
    # the save request was Turkish: the record line is labelled so on the model's own save path too (it said
    # "Record:" here until stop 48, when only the pipeline's save passed a language)
    note = (api.vault / "notes" / "Growth queue.md").read_text()
    assert "\n\nKayıt: [[" in note and "Record:" not in note


def test_save_outside_a_saved_chat_is_a_stop(api: Api) -> None:
    text = asyncio.run(tools_with(api.server.url, api.write_key).save("x", "y", [], {}))
    assert text.startswith("[STOP]")
