"""`sentinel chat` as a command, against an Ollama-shaped server (no registry ships Ollama itself): the REPL, the
Ollama dialect of tool calls and results, and the load/prefill/generation split that only Ollama reports."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sentinel import prompts
from sentinel.cli import app
from tests.support.chat_session import PAGES, SYSTEM_PROMPT_FILE
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.vault import WriteVault

NS = 1_000_000_000


def ollama(message: dict[str, Any], prompt_tokens: int, completion_tokens: int = 12) -> dict[str, Any]:
    """A non-streaming /api/chat reply as Ollama's API documentation shows it."""
    return {
        "model": "qwen3:4b",
        "message": {"role": "assistant", "content": "", **message},
        "done": True,
        "done_reason": "stop",
        "total_duration": 3 * NS,
        "load_duration": NS // 10,
        "prompt_eval_count": prompt_tokens,
        "prompt_eval_duration": NS,
        "eval_count": completion_tokens,
        "eval_duration": 2 * NS,
    }


def respond(request: RecordedRequest) -> tuple[int, Any]:
    body = request.body
    messages = body["messages"]
    schemas = 1200 if body.get("tools") else 0
    if messages[-1]["content"] == "ok":  # the start-up probe, with and without the schemas
        return 200, ollama({"content": "."}, 400 + schemas, 1)
    if not any(message["role"] == "tool" for message in messages):
        call = {"function": {"name": "search", "arguments": {"query": "growth queue"}}}
        return 200, ollama({"tool_calls": [call]}, 1700)
    return 200, ollama({"content": "It lists names no page answers to (notes/Growth queue.md)."}, 1900, 20)


def test_chat_command_runs_the_loop_against_ollama(vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("SENTINEL_")]:
        monkeypatch.delenv(name)
    settings = vault_settings(PAGES)
    args = [
        "chat",
        f"--vault={settings.vault}",
        f"--index={settings.index_path}",
        "--provider=ollama",
        "--model=qwen3:4b",
        "--num-ctx=8192",
        f"--system-prompt={SYSTEM_PROMPT_FILE}",
    ]
    with HttpStub(respond) as stub:
        result = CliRunner().invoke(
            app, [*args, f"--base-url={stub.url}"], input="what is the growth queue?\n/budget\n/quit\n"
        )
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # the terminal here is 80 columns: read the text, not the wrapping
    assert "SEARCH WILL BE LEXICAL-ONLY: no embedder is configured" in out
    assert "measured by the server: 1600 prompt tokens with the 7 schemas, 400 without" in out
    assert "you> what is the growth queue?" in out  # piped input is echoed, so a recording reads as typed
    assert '1. search(query="growth queue") → [OK]' in out
    assert "model> It lists names no page answers to" in out
    # Ollama reports the split: the footer and /budget show it instead of a wall-clock total.
    assert "load 0.2s prefill 2.0s generation 4.0s" in out
    assert "tool schemas (7)" in out and "1,200" in out
    # The tool result went back in Ollama's dialect: named by tool, not by call id.
    sent_back = [m for m in stub.requests[-1].body["messages"] if m["role"] == "tool"]
    assert sent_back[0]["tool_name"] == "search" and sent_back[0]["content"].startswith("[OK]")
    assert "] Growth queue (" in sent_back[0]["content"]
    # Four requests: two probes, the turn's call and its answer; every turn request carried the seven schemas.
    assert len(stub.requests) == 4
    assert [len(r.body.get("tools") or []) for r in stub.requests] == [0, 7, 7, 7]


def openai_respond(request: RecordedRequest) -> tuple[int, Any]:
    """An OpenAI-compatible server that answers the probes and refuses the question as too long (llama.cpp's
    spelling of it)."""
    if request.body["messages"][-1]["content"] == "ok":
        tokens = 400 + (1200 if request.body.get("tools") else 0)
        reply = {"choices": [{"message": {"content": "."}, "finish_reason": "length"}]}
        return 200, reply | {"usage": {"prompt_tokens": tokens, "completion_tokens": 1}}
    return 400, {
        "error": {
            "code": 400,
            "message": "request exceeds the available context size",
            "type": "exceed_context_size_error",
        }
    }


def test_a_full_context_is_said_with_the_way_out_and_the_session_goes_on(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in os.environ if name.startswith("SENTINEL_")]:
        monkeypatch.delenv(name)
    settings = vault_settings(PAGES)
    with HttpStub(openai_respond) as stub:
        result = CliRunner().invoke(
            app,
            [
                "chat",
                f"--vault={settings.vault}",
                f"--index={settings.index_path}",
                "--provider=openai",
                f"--base-url={stub.url}/v1",
                "--model=small",
                "--num-ctx=2048",
                f"--system-prompt={SYSTEM_PROMPT_FILE}",
            ],
            input="a very long question\n/steps\n/quit\n",
        )
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "the context is full, the question is not kept" in out and "/reset starts a new one" in out
    assert "you> /steps no turn yet in this context" in out
    assert len(stub.requests) == 3  # two probes and the refused question: no retry of a prompt that cannot fit


def test_a_context_window_below_one_token_is_refused(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    result = CliRunner().invoke(app, ["chat", f"--vault={settings.vault}", "--model=m", "--num-ctx=0"])
    assert result.exit_code == 2 and "--num-ctx" in result.output


def test_chat_started_outside_the_repository_finds_the_shipped_system_prompt(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No --system-prompt and a working folder with no tool/ in it: the prompt the package ships is the one sent."""
    for name in [name for name in os.environ if name.startswith("SENTINEL_")]:
        monkeypatch.delenv(name)
    settings = vault_settings(PAGES)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    args = ["chat", f"--vault={settings.vault}", f"--index={settings.index_path}", "--provider=ollama", "--model=m"]
    with HttpStub(respond) as stub:
        result = CliRunner().invoke(app, [*args, f"--base-url={stub.url}"], input="/quit\n")
    assert result.exit_code == 0, result.output
    system = stub.requests[0].body["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith(prompts.read_prompt(prompts.SYSTEM_PROMPT, "unused"))
