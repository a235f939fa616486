"""Answers a person reads, through the real Open WebUI: the Sentinel model answers through the answer pipeline.

The stack's own default model server (the real small Qwen on llama.cpp, nothing between) and the real tool API;
`sentinel openwebui setup` in auto mode probes the model, which fails the tool-calling probe and so gets the
answer pipe. Each turn is read as Open WebUI stored it: the text a person sees and the sources under it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sentinel.keys import Scope, create_key
from sentinel.openwebui_check import cited_sources
from tests.openwebui.servers import SentinelInOpenWebUI, sentinel_in_open_webui
from tests.openwebui.session import chat, setup_sentinel
from tests.support.llama import MODEL_ALIAS

pytestmark = pytest.mark.slow

PAGES = {
    "notes/Backups.md": "# Backups\n\nThe vault is backed up every night at 02:00 to the NAS with restic. Snapshots "
    "are kept for 30 days.\n\nSee [[Garden]] for the other nightly job.\n",
    "notes/Garden.md": "# Garden\n\nThe tomatoes are watered every second morning. The basil is watered only when "
    "the soil is dry.\n",
    "notes/Datensicherung.md": "# Datensicherung\n\nDas Notebook wird jeden Freitag auf die externe Festplatte im "
    "Keller gesichert.\n",
}
CALL_SHAPED = re.compile(r"```|\{\s*\"(?:name|arguments)\"|<tool_call>")


@pytest.fixture(scope="module")
def stack(owui_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SentinelInOpenWebUI, Path]]:
    work = tmp_path_factory.mktemp("owui-answers")
    vault = work / "vault"
    for rel, text in PAGES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    _, key = create_key(work / "keys.json", Scope.WRITE, "open-webui")
    with sentinel_in_open_webui(work, key) as running:
        model_env = {
            "SENTINEL_CONVERSATION__KIND": "openai",
            "SENTINEL_CONVERSATION__BASE_URL": running.model_url,
            "SENTINEL_CONVERSATION__MODEL": MODEL_ALIAS,
        }
        result = setup_sentinel(running.owui, running.api.url, MODEL_ALIAS, key, answers="auto", **model_env)
        assert "answers: pipeline: the base model failed the tool-calling probe" in result.output, result.output
        yield running, vault


def _turn(stack: tuple[SentinelInOpenWebUI, Path], text: str) -> tuple[str, dict[str, Any]]:
    return chat(stack[0].owui, text, tool_ids=())


def _assert_prose(message: dict[str, Any]) -> str:
    content = str(message.get("content") or "")
    assert content.strip(), message
    assert not CALL_SHAPED.search(content), content
    return content


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("When is my vault backed up, and where to?", "notes/Backups.md"),
        ("How often are the tomatoes watered?", "notes/Garden.md"),
        ("Wann wird das Notebook gesichert?", "notes/Datensicherung.md"),
    ],
)
def test_a_vault_question_is_answered_in_prose_citing_its_page(
    stack: tuple[SentinelInOpenWebUI, Path], question: str, page: str
) -> None:
    _, message = _turn(stack, question)
    _assert_prose(message)
    assert any(page in source for source in cited_sources(message)), (message.get("content"), message.get("sources"))


def test_save_this_keeps_the_users_sentence_and_the_transcript(stack: tuple[SentinelInOpenWebUI, Path]) -> None:
    chat_id, message = _turn(stack, "Save this: my favourite tea is genmaicha.")
    content = _assert_prose(message)
    vault = stack[1]
    notes = [p for p in (vault / "notes").glob("*.md") if "genmaicha" in p.read_text(encoding="utf-8")]
    assert len(notes) == 1, sorted(p.name for p in (vault / "notes").iterdir())
    assert "my favourite tea is genmaicha" in notes[0].read_text(encoding="utf-8")
    assert notes[0].stem in content  # the answer says which note was written, as a link
    transcripts = list((vault / "conversations").glob("*.md"))
    assert len(transcripts) == 1 and f"chat_id: {chat_id}" in transcripts[0].read_text(encoding="utf-8")


def test_a_link_question_is_answered_from_the_graph(stack: tuple[SentinelInOpenWebUI, Path]) -> None:
    _, message = _turn(stack, "What links to Garden?")
    content = _assert_prose(message)
    assert "Backups" in content and any("notes/Backups.md" in source for source in cited_sources(message))
    print(json.dumps({"link answer": content}, ensure_ascii=False))
