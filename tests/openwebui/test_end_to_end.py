"""Sentinel in a real Open WebUI: setup registers tool and model; chats call the real tool API; the vault shows it.

One stack for the module (each Open WebUI start costs ~25-60 s): the tool API service over a temporary vault,
Open WebUI (offline, fresh data folder) with three model connections: a scripted OpenAI-shaped backend, a
scripted Ollama-shaped one, and the API's own model gateway, whose pool holds the real small Qwen on llama.cpp
(registered by the API itself from ``SENTINEL_POOL__BACKENDS``, as a one-machine stack runs). Nothing sits
between Open WebUI and the product: the gateway (its schema on a turn's first answer, its repair of text calls)
is what makes Qwen's answers calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import Result

from sentinel import prompts
from sentinel.chat_prefix import ChatPrefix, KnownPrefix, prefix_to_warm, read_prefix
from sentinel.keys import KeyRing, Scope, create_key, load_keys
from sentinel.openwebui_warm import warm_request
from sentinel.paths import chat_prefix_path
from sentinel.settings import ChatSettings, OpenWebUISettings, Settings
from tests.openwebui.chat_backends import ChatBackend, ToolCall, scripted
from tests.openwebui.servers import REPO, Server, sentinel_in_open_webui
from tests.openwebui.session import admin as signed_in
from tests.openwebui.session import chat as chat_turn
from tests.openwebui.session import setup_sentinel
from tests.support.llama import MODEL_ALIAS

pytestmark = pytest.mark.slow

PRIMITIVES = {"read", "search", "listing", "graph", "write", "relocate", "remove"}
STATUS_MARKERS = ("[OK]", "[OK → next]", "[DONE]", "[RETRY]", "[STOP]", "[more]", "[note]")
# What setup sends: the shipped file with its status-marker slot filled from Status (prompts.read_prompt).
SYSTEM_PROMPT = prompts.read_prompt(prompts.SYSTEM_PROMPT, "SENTINEL_OPENWEBUI__SYSTEM_PROMPT_FILE") + "\n"
ANSWER = "Saved it to your notes."
PAGE = """---
type: note
---
# Maintenance

The growth queue lists the names that links reach for but no page defines yet.
"""


KEPT = "The growth queue lists names no page defines yet."
BACKUPS = "# Backups\nThe vault is backed up every night at 02:00 to the NAS with restic.\n"
# A question the small Qwen answers with a search (bench/toolcalls.py); for "the growth queue" it picks graph or
# listing, whose descriptions speak of names links reach for.
QUESTION = "When is my vault backed up, and where to?"
# One model run, repeatable and bounded: a 0.5B model left unbounded can ramble for thousands of tokens.
CHAT_PARAMS = {"temperature": 0, "seed": 1, "max_tokens": 300}
SUBJECTS = {"scripted-openai": "Growth queue via OpenAI", "scripted-ollama:latest": "Growth queue via Ollama"}


def script(subject: str) -> list[ToolCall]:
    return [ToolCall("search", {"query": "growth queue"}), ToolCall("save", {"subject": subject, "content": KEPT})]


@dataclass
class Stack:
    owui: Server
    api: Server
    vault: Path
    key: str
    backends: dict[str, ChatBackend]
    api_log: Path


@pytest.fixture(scope="module")
def stack(owui_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("owui-e2e")
    vault = work / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "Maintenance.md").write_text(PAGE)
    (vault / "notes" / "Backups.md").write_text(BACKUPS)
    _, key = create_key(work / "keys.json", Scope.WRITE, label="open-webui test")
    backends = {name: scripted(name, script(subject), ANSWER) for name, subject in SUBJECTS.items()}
    openai, ollama = [backends["scripted-openai"]], [backends["scripted-ollama:latest"]]
    with sentinel_in_open_webui(work, key, openai, ollama) as up:
        yield Stack(owui=up.owui, api=up.api, vault=vault, key=key, backends=backends, api_log=up.api_log)


def run_setup(stack: Stack, base_model: str, key: str = "", **extra_env: str) -> Result:
    return setup_sentinel(stack.owui, stack.api.url, base_model, key, **extra_env)


def admin(stack: Stack) -> httpx.Client:
    return signed_in(stack.owui)


def chat(stack: Stack, text: str, timeout_s: float = 900, **params: Any) -> tuple[str, dict[str, Any]]:
    return chat_turn(stack.owui, text, timeout_s, params)


def transcript_of(vault: Path, chat_id: str) -> Path:
    found = [p for p in (vault / "conversations").glob("*.md") if f"chat_id: {chat_id}" in p.read_text()]
    assert len(found) == 1, f"transcripts for {chat_id}: {found}"
    return found[0]


def test_setup_registers_tool_and_model_and_a_second_run_updates_them(stack: Stack) -> None:
    first = run_setup(stack, "scripted-openai", key=stack.key)
    assert "tool 'sentinel' created" in first.output and "model 'sentinel' (Sentinel) created" in first.output
    second = run_setup(stack, "scripted-openai")  # no key given: the one in the valves stays
    assert "tool 'sentinel' updated" in second.output and "model 'sentinel' (Sentinel) updated" in second.output
    assert "kept from the valves" in second.output and "warning" not in second.output

    client = admin(stack)
    # the Python tool once, and Sentinel's MCP endpoint as a tool server beside it (tests/openwebui/test_mcp_server.py)
    listed = [tool["id"] for tool in client.get("/api/v1/tools/").json()]
    assert listed.count("sentinel") == 1 and all(t == "sentinel" or t.endswith("sentinel-mcp") for t in listed), listed
    valves = client.get("/api/v1/tools/id/sentinel/valves").json()
    assert valves["api_url"] == stack.api.url and valves["api_key"] == stack.key
    assert [m["id"] for m in client.get("/api/models").json()["data"]].count("sentinel") == 1
    info = client.get("/api/v1/models/model", params={"id": "sentinel"}).json()
    assert info["base_model_id"] == "scripted-openai"
    assert info["params"]["system"] == SYSTEM_PROMPT and info["params"]["function_calling"] == "native"
    assert info["params"]["max_tokens"] == ChatSettings().reply_tokens  # the one reply cap, not Open WebUI's none
    assert info["meta"]["toolIds"] == ["sentinel"] and info["meta"]["capabilities"]["builtin_tools"] is False


def test_setup_without_any_key_creates_a_write_key(stack: Stack, tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.json"
    fresh = {"SENTINEL_OPENWEBUI__TOOL_ID": "sentinel_fresh", "SENTINEL_OPENWEBUI__MODEL_ID": "sentinel-fresh"}
    result = run_setup(stack, "scripted-openai", SENTINEL_API_KEYS_FILE=str(keys_file), **fresh)
    assert "key created (write scope)" in result.output and "restart the tool API" in result.output
    (record,) = load_keys(keys_file)
    valves = admin(stack).get("/api/v1/tools/id/sentinel_fresh/valves").json()
    assert record.scope is Scope.WRITE and KeyRing.from_sources(keys_file).scope_of(valves["api_key"]) is Scope.WRITE


@pytest.mark.parametrize("base_model", ["scripted-openai", "scripted-ollama:latest"])
def test_a_chat_searches_then_saves_into_the_vault(stack: Stack, base_model: str) -> None:
    backend = stack.backends[base_model]
    run_setup(stack, base_model, key=stack.key)
    seen = len(backend.requests)
    chat_id, message = chat(stack, "What is the growth queue? Save this.")
    assert ANSWER in message["content"]

    turn = backend.requests[seen:]
    assert {tool["function"]["name"] for tool in turn[0]["tools"]} == PRIMITIVES | {"save"}
    assert turn[0]["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    search_result, save_result = [m["content"] for m in turn[-1]["messages"] if m["role"] == "tool"]
    assert (
        search_result.startswith(STATUS_MARKERS) and "Maintenance (" in search_result
    )  # the summary rung names the page
    assert save_result.startswith("[OK"), save_result

    transcript = transcript_of(stack.vault, chat_id)
    assert "What is the growth queue? Save this." in transcript.read_text()
    subject = script("")[1].arguments["content"]
    note = (
        stack.vault / "notes" / f"Growth queue via {'Ollama' if 'ollama' in base_model else 'OpenAI'}.md"
    ).read_text()
    assert subject in note
    records = [line for line in note.splitlines() if line.startswith("Record:")]
    assert len(records) == 1 and transcript.stem in records[0]


def test_the_warm_up_sends_exactly_the_prefix_open_webui_sends(stack: Stack) -> None:
    """The warm-up fills the model server's prompt cache only if its prefix is Open WebUI's, byte for byte: the
    first request of a chat after setup begins with the system message and the tools the shipped prefix holds
    (the default settings), which is what the warm-up sends. Fails the day Open WebUI, the tool file or the
    system prompt changes them: then `make chat-prefix`."""
    backend = stack.backends["scripted-openai"]
    run_setup(stack, "scripted-openai", key=stack.key)
    seen = len(backend.requests)
    chat(stack, "What is the growth queue?")
    first = backend.requests[seen]
    sent = ChatPrefix.of_request(first)
    assert sent is not None and sent.messages == first["messages"][:1]  # one system message, then the question
    assert sent == read_prefix(REPO / "tool" / "chat_prefix.json"), "Open WebUI's prefix changed: run make chat-prefix"
    owui = OpenWebUISettings(
        system_prompt_file=prompts.SYSTEM_PROMPT, chat_prefix_file=REPO / "tool" / "chat_prefix.json"
    )
    nothing_recorded = stack.vault.parent / "none" / "index.db"  # as on a first start: the shipped prefix
    known = prefix_to_warm(Settings(vault=stack.vault, index_path=nothing_recorded, openwebui=owui))
    assert isinstance(known, KnownPrefix), known
    warm = warm_request(known.prefix, "scripted-openai")
    assert warm["messages"][:-1] == first["messages"][:-1] and warm["tools"] == first["tools"]


def _tool_lines(stack: Stack, after: int) -> list[dict[str, Any]]:
    lines = stack.api_log.read_text().splitlines()[after:]
    return [json.loads(line) for line in lines if line.startswith("{") and '"message": "tool"' in line]


def _tool_answers(stack: Stack) -> dict[str, float]:
    metrics = httpx.get(f"{stack.api.url}/metrics", headers={"Authorization": f"Bearer {stack.key}"}).text
    prefix = f'sentinel_pool_tool_answers_total{{model="{MODEL_ALIAS}",outcome="'
    return {
        line[len(prefix) :].split('"', 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in metrics.splitlines()
        if line.startswith(prefix)
    }


# A real model on two shared cores: ~1 min alone, many times that on a busy machine.
@pytest.mark.timeout(2400)
def test_the_stack_s_small_model_answers_a_vault_question_with_a_search_call(stack: Stack) -> None:
    """The stack's default chat path, nothing in between: Open WebUI -> the API's gateway -> llama.cpp with the
    small Qwen. Its first answer is constrained to a call (the gateway's schema), so it searches, the search hits
    the tool API and finds the page, and the model answers from it."""
    run_setup(stack, MODEL_ALIAS, key=stack.key)
    before, answered = len(stack.api_log.read_text().splitlines()), _tool_answers(stack)
    _, message = chat(stack, QUESTION, timeout_s=2100, **CHAT_PARAMS)
    calls = _tool_lines(stack, before)
    assert calls and calls[0]["tool"] == "search", (calls, message["content"])
    assert calls[0]["marker"].startswith("[OK") and "notes/Backups.md" in calls[0]["pages"], calls[0]
    assert _tool_answers(stack).get("constrained", 0) > answered.get("constrained", 0)
    # the gateway kept what Open WebUI sent before the question, for the next start's warm-up: the shipped prefix
    recorded = read_prefix(chat_prefix_path(Settings(vault=stack.vault, index_path=stack.vault.parent / "index.db")))
    assert recorded == read_prefix(REPO / "tool" / "chat_prefix.json")


@pytest.mark.timeout(2400)
def test_the_stack_s_small_model_saves_when_asked(stack: Stack) -> None:
    """'Save this' through the same path: the save call reaches the API, which writes a note and the verbatim
    transcript the note links to."""
    run_setup(stack, MODEL_ALIAS, key=stack.key)
    before = len(stack.api_log.read_text().splitlines())
    ask = "Save this as a note: the guest wifi network is called garden-guest."
    chat_id, message = chat(stack, ask, timeout_s=2100, **CHAT_PARAMS)
    saves = [call for call in _tool_lines(stack, before) if call["tool"] == "save"]
    assert saves and saves[0]["marker"].startswith("[OK"), (saves, message["content"])
    transcript = transcript_of(stack.vault, chat_id)
    assert ask in transcript.read_text()
    (note,) = [page for page in saves[0]["pages"] if page.startswith("notes/")]
    assert transcript.stem in (stack.vault / note).read_text()
