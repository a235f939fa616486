"""Which chat prefix the warm-up sends, and how the gateway's recorder keeps one: real files, no server.

The prefix is what Open WebUI sends before a Sentinel chat's question (tool/chat_prefix.json, recorded from the
real Open WebUI; test_end_to_end.py checks it still is). The recorded one wins, either only while its system
message is the configured prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sentinel import prompts
from sentinel.chat_prefix import ChatPrefix, KnownPrefix, PrefixRecorder, prefix_to_warm, read_prefix, write_prefix
from sentinel.paths import chat_prefix_path
from sentinel.settings import OpenWebUISettings, Settings

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "tool" / "chat_prefix.json"
PROMPT = prompts.read_prompt(prompts.SYSTEM_PROMPT, "unused") + "\n"  # as Open WebUI sends it


def _settings(tmp_path: Path, **owui: object) -> Settings:
    files = {
        "system_prompt_file": prompts.SYSTEM_PROMPT,
        "research_prompt_file": prompts.RESEARCH_PROMPT,
        "chat_prefix_file": SHIPPED,
    }
    return Settings(
        vault=tmp_path / "vault",
        index_path=tmp_path / "data" / "index.db",
        openwebui=OpenWebUISettings(**(files | owui)),
    )


def _request(system: str, tools: list[dict[str, Any]], question: str = "Where are my backups?") -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": question}],
        "tools": tools,
    }


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {"name": "search", "description": "Search.", "parameters": {"type": "object", "properties": {}}},
    }
]


def test_the_shipped_prefix_is_the_default_prompt_and_the_tool_file_s_primitives() -> None:
    shipped = read_prefix(SHIPPED)
    assert shipped is not None and shipped.system_prompt == PROMPT
    names = {tool["function"]["name"] for tool in shipped.tools}
    assert names == {"read", "search", "listing", "graph", "write", "relocate", "remove", "save"}


def test_without_a_recorded_prefix_the_shipped_one_is_warmed(tmp_path: Path) -> None:
    known = prefix_to_warm(_settings(tmp_path))
    assert isinstance(known, KnownPrefix) and known.prefix == read_prefix(SHIPPED)
    assert known.origin.startswith("shipped")


def test_a_recorded_prefix_wins_over_the_shipped_one(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    recorded = ChatPrefix([{"role": "system", "content": PROMPT}], TOOLS)
    write_prefix(chat_prefix_path(settings), recorded)
    known = prefix_to_warm(settings)
    assert isinstance(known, KnownPrefix) and known.prefix == recorded and known.origin.startswith("recorded")


def test_a_prefix_of_another_prompt_is_not_warmed_and_the_reason_names_the_file(tmp_path: Path) -> None:
    """With a Searcher configured the prompt gains the research part: the shipped (default) prefix no longer
    matches, and neither does a recording made before the change."""
    settings = _settings(tmp_path, searcher_url="http://searcher:8002")
    write_prefix(chat_prefix_path(settings), ChatPrefix([{"role": "system", "content": PROMPT}], TOOLS))
    why = prefix_to_warm(settings)
    assert isinstance(why, str)
    assert f"{chat_prefix_path(settings)} holds another system prompt" in why and f"{SHIPPED} holds another" in why


def test_an_unreadable_recording_is_named_and_the_shipped_one_used(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    chat_prefix_path(settings).parent.mkdir(parents=True)
    chat_prefix_path(settings).write_text("{half a file")
    known = prefix_to_warm(settings)
    assert isinstance(known, KnownPrefix) and known.origin.startswith("shipped")
    broken = prefix_to_warm(_settings(tmp_path, chat_prefix_file=tmp_path / "absent.json"))
    assert isinstance(broken, str) and "is not a readable chat prefix" in broken and "delete it" in broken


def test_the_recorder_keeps_the_latest_sentinel_prefix_and_writes_only_when_it_changed(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    recorder = PrefixRecorder(settings)
    path = chat_prefix_path(settings)
    assert not recorder.remember(_request("You are someone else.", TOOLS)) and not path.exists()  # not Sentinel's
    assert not recorder.remember({"messages": [{"role": "user", "content": "hi"}]})  # no tools: a title task
    assert recorder.remember(_request(PROMPT, TOOLS))
    assert read_prefix(path) == ChatPrefix([{"role": "system", "content": PROMPT}], TOOLS)
    written = path.stat().st_mtime_ns
    assert not recorder.remember(_request(PROMPT, TOOLS, question="Another question?"))  # same prefix: no write
    assert path.stat().st_mtime_ns == written
    changed = [*TOOLS, {"type": "function", "function": {"name": "save", "parameters": {}}}]
    assert recorder.remember(_request(PROMPT, changed))
    assert json.loads(path.read_text())["tools"] == changed
    # a new process (the API restarted) knows what is on disk: the same prefix again writes nothing
    assert not PrefixRecorder(settings).remember(_request(PROMPT, changed))
