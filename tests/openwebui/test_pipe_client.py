"""The answer pipe's own behaviour against the real tool API (no model configured: the answers are extractive).

Open WebUI is not needed: the file's Pipe class is plain Python (pydantic and httpx), loaded here by path and
called the way Open WebUI calls a pipe, reserved arguments included.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sentinel.keys import Scope, create_key
from tests.openwebui.servers import REPO, Server, sentinel_api

PAGE = "# Backups\n\nThe vault is backed up every night at 02:00 to the NAS with restic.\n"


def pipe_with(api_url: str, api_key: str) -> Any:
    spec = importlib.util.spec_from_file_location("sentinel_openwebui_pipe", REPO / "tool" / "openwebui_pipe.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pipe = module.Pipe()
    pipe.valves = pipe.Valves(api_url=api_url, api_key=api_key)
    return pipe


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path, str, str]]:
    work = tmp_path_factory.mktemp("pipe-client")
    vault = work / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "Backups.md").write_text(PAGE)
    _, write = create_key(work / "keys.json", Scope.WRITE, "pipe")
    _, read = create_key(work / "keys.json", Scope.READ, "reader")
    with sentinel_api(vault, work / "index.db", work / "keys.json", work / "api.log") as server:
        yield server, vault, write, read


def _run(pipe: Any, text: str, chat_id: str = "chat-1", task: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []

    async def emit(event: dict[str, Any]) -> None:
        events.append(event)

    body = {"messages": [{"role": "user", "content": text}]}
    answer = asyncio.run(pipe.pipe(body, __metadata__={"chat_id": chat_id}, __event_emitter__=emit, __task__=task))
    return answer, events


def test_an_answer_carries_its_passages_as_sources(api: tuple[Server, Path, str, str]) -> None:
    server, _, key, _ = api
    answer, events = _run(pipe_with(server.url, key), "When is the vault backed up?")
    assert "02:00" in answer
    sources = [e["data"] for e in events if e["type"] == "citation"]
    assert [s["source"]["name"] for s in sources] == ["notes/Backups.md › Backups"]
    assert sources[0]["source"]["url"].startswith("obsidian://open?vault=vault&file=notes%2FBackups")
    assert "02:00" in sources[0]["document"][0]
    assert [e["data"]["done"] for e in events if e["type"] == "status"] == [False, True]


def test_the_pipe_shows_the_lines_the_api_words_in_the_turns_language(api: tuple[Server, Path, str, str]) -> None:
    """The pipe decides no language: the line shown while it waits comes from the API (POST /v1/ask/status), as
    does the status line after; before, both were English in a Turkish chat."""
    server, _, key, _ = api
    answer, events = _run(pipe_with(server.url, key), "Kasa NAS'a restic ile ne zaman yedeklenir?", "chat-tr-q")
    assert answer.startswith("Kasandan (alıntı):") and "02:00" in answer  # no model here: the page quoted
    statuses = [(e["data"]["description"], e["data"]["done"]) for e in events if e["type"] == "status"]
    assert statuses == [("Kasanda aranıyor…", False), ("kasandan alıntılandı", True)]


def test_save_this_saves_once_and_a_title_task_never_reaches_the_vault(api: tuple[Server, Path, str, str]) -> None:
    server, vault, key, read_key = api
    pipe = pipe_with(server.url, key)
    title, events = _run(
        pipe,
        "### Task: title\n<chat_history>\nUSER: Save this: the spare key is in the shed\n",
        task="title_generation",
    )
    assert json.loads(title) == {"title": "Save this: the spare key is"} and events == []
    assert not (vault / "conversations").exists()
    answer, events = _run(pipe, "Save this: the spare key is in the shed", chat_id="chat-save")
    notes = [p for p in (vault / "notes").glob("*.md") if "spare key" in p.read_text()]
    assert len(notes) == 1 and notes[0].stem in answer
    # the status says what happened, the reply where: neither repeats the other (rows 3, 6, 9 of stop 46's table)
    assert events[-1]["data"]["description"] == "Saved" and f"notes/{notes[0].name}" in answer
    assert "saved" not in answer.casefold()
    answer, events = _run(pipe, "bunu kaydet: yedek anahtar kulübede", chat_id="chat-tr")
    assert events[-1]["data"]["description"] == "Kaydedildi"  # the request's language, not English
    assert answer.startswith("Sözlerin [notes/") and "Kaydedildi" not in answer
    refused, _ = _run(pipe_with(server.url, read_key), "Save this: the bike lock code is 0000", chat_id="chat-r")
    assert "read-only" in refused or "not available" in refused
    assert not any("bike lock" in p.read_text() for p in (vault / "notes").glob("*.md"))


def test_no_key_or_no_api_is_said_in_words(api: tuple[Server, Path, str, str]) -> None:
    assert "no API key" in _run(pipe_with(api[0].url, ""), "hello")[0]
    assert "could not be reached" in _run(pipe_with("http://127.0.0.1:9", "k"), "hello")[0]
