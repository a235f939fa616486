"""Chat comes first: a maintenance pass started while a chat is in flight through the real gateway (real Redis,
the API app on loopback, a node that takes a few seconds to stream its answer) waits between pages until the
model server has been free of chat for ``maintain_chat_idle_s``, says so in its progress, and then goes on.

The pass's own model is scripted (what it answers does not matter here; when it is asked does).
"""

from __future__ import annotations

import json
import threading
import time

import httpx
from redis import Redis

from sentinel.index.db import open_index
from sentinel.maintain.models import Models
from sentinel.maintain.run import run_pass
from sentinel.providers import ChatResult
from sentinel.serving import server_key
from sentinel.settings import ProviderSettings, Settings
from sentinel_pool.chat_first import RedisServingRecord, server_state
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish
from services.api.app import create_app
from tests.pool.nodes import recorded_node, wait_for
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.servers import serve

MODEL = "busy"
PIECES = ["The", " growth", " queue", " lists", " names", " no", " page", " defines."]
IDLE_S = 1.5


def _scripted_pass_model(asked_at: list[float]) -> Models:
    def answer(_: ChatRequest) -> ChatResult:
        asked_at.append(time.time())
        return ChatResult(
            content=json.dumps({"summary": "A page.", "concepts": []}), prompt_tokens=9, completion_tokens=9
        )

    provider = ScriptedProvider([answer] * 10)
    return Models(provider, provider, "scripted")


def test_a_pass_pauses_while_a_chat_is_in_flight_and_resumes_after(
    pool_settings: Settings, redis_client: Redis, keys: PoolKeys
) -> None:
    with recorded_node(PIECES, MODEL, piece_delay_s=0.4) as node:
        model_server = ProviderSettings(kind="openai", base_url=f"{node}/v1", model=MODEL)
        settings = pool_settings.model_copy(
            update={"extraction": model_server, "summary": model_server, "maintain_chat_idle_s": IDLE_S}
        )
        backend = BackendRecord(url=f"{node}/v1", kind="openai", models=[MODEL], loaded=[MODEL], slots=1)
        publish(redis_client, keys, NodeRecord(node="busy-node", backends=[backend]), ttl_s=60)
        chat_ended: list[float] = []
        with serve(create_app(settings)) as gateway:

            def chat() -> None:
                ask = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "growth queue?"}]}
                with httpx.stream("POST", f"{gateway}/v1/chat/completions", json=ask, timeout=60) as answer:
                    assert answer.status_code == 200
                    list(answer.iter_lines())
                chat_ended.append(time.time())

            talking = threading.Thread(target=chat)
            talking.start()
            server = server_key(node)
            wait_for(lambda: server_state(redis_client, keys, server).in_flight == 1, 20, "the chat in flight")

            asked_at: list[float] = []
            lines: list[str] = []
            report = run_pass(
                settings,
                open_index(settings),
                models=lambda: _scripted_pass_model(asked_at),
                serving=RedisServingRecord(settings),
                say=lines.append,
            )
            talking.join(30)

    assert report.analysed == 1 and chat_ended
    assert asked_at[0] >= chat_ended[0] + IDLE_S, "the pass asked its model while the chat was still on it"
    progress = "\n".join(lines)
    assert "paused: chat comes first (1 chat request(s) in flight on " + server in progress, progress
    assert "resumed: the model server was free of chat" in progress, progress
    assert server_state(redis_client, keys, server).in_flight == 0


def test_a_pass_with_no_chat_around_does_not_pause(pool_settings: Settings) -> None:
    model_server = ProviderSettings(kind="openai", base_url="http://127.0.0.1:9/v1", model=MODEL)
    settings = pool_settings.model_copy(update={"extraction": model_server, "summary": model_server})
    lines: list[str] = []
    report = run_pass(
        settings,
        open_index(settings),
        models=lambda: _scripted_pass_model([]),
        serving=RedisServingRecord(settings),
        say=lines.append,
    )
    assert report.analysed == 1 and not any("paused" in line for line in lines)
