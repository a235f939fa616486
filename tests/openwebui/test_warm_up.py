"""The warm-up against the real thing: llama.cpp with the small Qwen (one slot, as the stack runs it) behind the
API's own gateway, which Open WebUI's chat goes through. A first question shaped as Open WebUI sends it (the
shipped prefix, another question, streamed) is asked of a freshly started server twice: without a warm-up it
prefills the whole prompt; after one, llama.cpp's own ``timings`` say the prefix came from its cache. Token
counts only, never seconds (the machine's load decides those).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from sentinel import prompts
from sentinel.chat_prefix import read_prefix
from sentinel.keys import Scope, create_key
from sentinel.openwebui_warm import WarmResult, warm, warm_request
from sentinel.paths import chat_prefix_path
from sentinel.settings import OpenWebUISettings, Settings
from tests.openwebui.servers import REPO, Server, sentinel_api_serving
from tests.support.llama import MODEL_ALIAS, llama_server

pytestmark = pytest.mark.slow

SHIPPED = REPO / "tool" / "chat_prefix.json"
QUESTION = "When is my vault backed up, and where to?"
# The question's own turn (its words and the chat template's markers around them): the most a warmed question may
# still prefill. Measured 16 tokens for QUESTION.
QUESTION_TURN_TOKENS = 40


@dataclass
class Gateway:
    api: Server
    key: str
    settings: Settings  # the warm-up's: the API's data folder, the gateway as its endpoint


@contextmanager
def fresh_gateway(work: Path) -> Iterator[Gateway]:
    """A llama.cpp server that has served nothing yet (empty prompt cache), behind the real API's gateway."""
    (work / "vault" / "notes").mkdir(parents=True)
    _, key = create_key(work / "keys.json", Scope.WRITE, label="warm-up test")
    with (
        llama_server(ctx=8192) as llama,
        sentinel_api_serving(work / "vault", work / "index.db", work / "keys.json", work / "api.log", llama) as api,
    ):
        owui = OpenWebUISettings(
            system_prompt_file=prompts.SYSTEM_PROMPT,
            chat_prefix_file=SHIPPED,
            base_model=MODEL_ALIAS,
            warm_url=f"{api.url}/v1",
            warm_key=key,
        )
        yield Gateway(api, key, Settings(vault=work / "vault", index_path=work / "index.db", openwebui=owui))


def ask_as_open_webui(gateway: Gateway) -> dict[str, Any]:
    """Open WebUI's first request of a chat (the shipped prefix, then the question; streamed, as it streams), cut
    to one token; llama.cpp's ``timings`` from the stream's last event."""
    prefix = read_prefix(SHIPPED)
    assert prefix is not None
    body = warm_request(prefix, MODEL_ALIAS)
    body.update(stream=True, messages=[*prefix.messages, {"role": "user", "content": QUESTION}])
    headers = {"Authorization": f"Bearer {gateway.key}"}
    with httpx.stream("POST", f"{gateway.api.url}/v1/chat/completions", json=body, headers=headers, timeout=900) as r:
        assert r.status_code == 200, r.read()
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: {")]
    timings = [event["timings"] for event in events if "timings" in event]
    assert timings, f"no llama.cpp timings in the stream: {events[-2:]}"
    return dict(timings[-1])


@pytest.mark.timeout(1800)
def test_after_the_warm_up_the_first_question_finds_the_prefix_in_llama_cpp_s_cache(tmp_path: Path) -> None:
    with fresh_gateway(tmp_path / "cold") as gateway:
        cold = ask_as_open_webui(gateway)
    with fresh_gateway(tmp_path / "warm") as gateway:
        warmed: WarmResult = warm(gateway.settings)
        recorded_by_warm_up = chat_prefix_path(gateway.settings).exists()
        hot = ask_as_open_webui(gateway)
        recorded = read_prefix(chat_prefix_path(gateway.settings))
    whole = cold["prompt_n"]
    print(
        f"cold: {cold['cache_n']} cached + {cold['prompt_n']} prefilled; warmed: {warmed.line}; "
        f"then {hot['cache_n']} cached + {hot['prompt_n']} prefilled"
    )  # shown with -s
    assert cold["cache_n"] == 0 and whole > 1500, cold  # no warm-up: the whole prompt, system and tools, prefilled
    assert warmed.warmed and "prompt tokens of the Sentinel chat's prefix (shipped" in warmed.line, warmed.line
    assert hot["cache_n"] + hot["prompt_n"] == whole  # the same prompt, token for token
    assert hot["cache_n"] >= whole - QUESTION_TURN_TOKENS and hot["prompt_n"] <= QUESTION_TURN_TOKENS, hot
    # the warm-up is background work, not a chat: only the question made the gateway record the prefix
    assert not recorded_by_warm_up and recorded == read_prefix(SHIPPED)
