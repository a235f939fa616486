"""The daemon pool routes with the pool's one router (the API's gateway's, in the leader's memory), with daemons
as separate processes and real HTTP model servers behind them: the OpenAI SDK's own retries and a client's
Idempotency-Key never pass three dispatches, a failing node is cooled down and probed back, Ollama clients get
Ollama's dialect in full, and a tool call a small model writes as text reaches the client as a real call."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.pool.daemons import DaemonProcess, daemons, wait_for_leader
from tests.pool.nodes import completion, wait_for
from tests.pool.test_bursts import _Switchable
from tests.pool.test_daemons import ASK, MODEL, _specs
from tests.pool.test_dialects import CALL, TOOLS, _ollama_node
from tests.support.http_stub import HttpStub, RecordedRequest


class _Probed(_Switchable):
    """A switchable node whose model list always answers (the daemon probes it); its chats answer ``status``."""

    def _respond(self, request: RecordedRequest) -> tuple[int, Any]:
        if request.path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
        if self.status != 200:
            return self.status, {"error": {"message": "broken node"}}
        return 200, completion("fine")


def _serving(leader: DaemonProcess, count: int, model: str = MODEL) -> bool:
    nodes = leader.get("/api/cluster").json()["nodes"]
    return sum(model in str(n.get("backends")) for n in nodes if n["state"] == "up") >= count


def test_sdk_retries_and_idempotency_keys_are_capped_and_a_failing_node_is_cooled_down(tmp_path: Path) -> None:
    nodes = [_Probed(500) for _ in range(3)]
    with nodes[0].stub, nodes[1].stub, nodes[2].stub:
        backends = [[], *([f"openai={node.stub.url}/v1"] for node in nodes)]
        specs = _specs([16_000, 8_000, 8_000, 8_000], backends)
        specs[0]["env"] = {"SENTINEL_POOL__BREAKER_COOLDOWN_S": "3"}
        with daemons(specs, tmp_path) as group:
            assert wait_for_leader(group)[0] == "node-a"
            wait_for(lambda: _serving(group[0], 3), 20, "the leader to hear the three nodes' models")
            follower = group[1].url
            dispatched = lambda: sum(node.chats for node in nodes)  # noqa: E731

            client = openai.OpenAI(base_url=f"{follower}/v1", api_key="none", timeout=30)  # max_retries=2
            with pytest.raises(openai.InternalServerError) as raised:
                client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}])
            assert raised.value.response.headers["x-should-retry"] == "false"
            assert dispatched() == 3  # the pool's three attempts, one per node; the SDK added none

            key = {"Idempotency-Key": "retry-me-7"}
            asks = [httpx.post(f"{follower}/v1/chat/completions", json=ASK, headers=key, timeout=30) for _ in range(3)]
            assert [a.status_code for a in asks] == [503] * 3
            # every node failed twice now: every breaker is open, so the key's later retries reached nobody
            assert dispatched() == 6, [node.chats for node in nodes]
            cooled = httpx.post(f"{follower}/v1/chat/completions", json=ASK, timeout=30)
            assert cooled.status_code == 503 and "cooled down" in cooled.json()["error"]["message"]
            assert int(cooled.headers["retry-after"]) >= 1 and dispatched() == 6

            nodes[0].status = 200  # node-b recovered; after the cooldown one probe finds out
            time.sleep(3.2)
            probe = httpx.post(f"{follower}/v1/chat/completions", json=ASK, timeout=30)
            assert probe.status_code == 200 and probe.headers["x-sentinel-node"] == "node-b"
            metrics = group[0].get("/metrics").text
            failovers = [line for line in metrics.splitlines() if line.startswith("sentinel_pool_failovers_total{")]
            assert sum(float(line.split()[-1]) for line in failovers) == dispatched() - 1  # all but the probe


def _text_call_node(requests: list[RecordedRequest]) -> HttpStub:
    """An OpenAI-shaped server whose model writes its tool call as text, as the small Qwen does."""

    def respond(request: RecordedRequest) -> tuple[int, Any]:
        requests.append(request)
        if request.path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
        return 200, completion(json.dumps({"name": "read", "arguments": {"page": "Pool"}}))

    return HttpStub(respond)


def test_ollama_clients_get_their_dialect_and_text_tool_calls_become_real_calls(tmp_path: Path) -> None:
    received: list[tuple[str, dict[str, Any]]] = []
    requests: list[RecordedRequest] = []
    with _ollama_node(received) as ollama, _text_call_node(requests) as openai_node:
        backends = [[], [f"ollama={ollama}"], [f"openai={openai_node.url}/v1"]]
        with daemons(_specs([16_000, 8_000, 8_000], backends), tmp_path) as group:
            assert wait_for_leader(group)[0] == "node-a"
            wait_for(lambda: _serving(group[0], 1, "qwen3"), 20, "the leader to hear node-b's models")
            wait_for(lambda: _serving(group[0], 1, MODEL), 20, "the leader to hear node-c's models")
            follower = group[2].url

            body = {
                "model": "qwen3",
                "messages": [{"role": "user", "content": "read Pool"}],
                "options": {"num_ctx": 32768, "temperature": 0.2},
                "keep_alive": "30m",
                "think": True,
                "tools": TOOLS,
            }
            streamed = httpx.post(f"{follower}/api/chat", json=body, timeout=30)
            assert streamed.status_code == 200 and streamed.headers["x-sentinel-node"] == "node-b"
            assert received[-1] == ("/api/chat", body | {"model": "qwen3:latest"})  # every field, untouched
            lines = [json.loads(line) for line in streamed.text.splitlines()]
            assert lines[1]["message"]["tool_calls"] == [CALL] and lines[-1]["done"] is True
            shown = httpx.post(f"{follower}/api/show", json={"model": "qwen3"}, timeout=30).json()
            assert shown["capabilities"] == ["completion", "tools"]
            tags = httpx.get(f"{follower}/api/tags", timeout=30).json()
            assert {"qwen3:latest", MODEL} <= {entry["name"] for entry in tags["models"]}

            translated = httpx.post(f"{follower}/api/chat", json=body | {"model": MODEL, "stream": False}, timeout=30)
            assert translated.status_code == 200 and translated.headers["x-sentinel-node"] == "node-c"
            assert "num_ctx" in translated.headers["x-sentinel-ignored"]  # named, never dropped silently
            assert translated.json()["message"]["tool_calls"][0]["function"]["name"] == "read"

            chat = {"model": MODEL, "messages": [{"role": "user", "content": "read Pool"}], "tools": TOOLS}
            answer = httpx.post(f"{follower}/v1/chat/completions", json=chat, timeout=30).json()
            choice = answer["choices"][0]
            assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] in (None, "")
            assert json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]) == {"page": "Pool"}
            assert "response_format" in requests[-1].body  # the turn's first call was constrained on the way
            metrics = group[0].get("/metrics").text
            assert 'sentinel_pool_tool_answers_total{model="tiny",outcome="constrained"} 2.0' in metrics, metrics

            garbled = httpx.post(f"{follower}/v1/chat/completions", content=b"{not json", timeout=30)
            assert garbled.status_code == 400 and "not JSON" in garbled.json()["error"]["message"]
            ollama_garbled = httpx.post(f"{follower}/api/chat", content=b"[1, 2]", timeout=30)
            assert ollama_garbled.status_code == 400 and "JSON object" in ollama_garbled.json()["error"]
            nowhere = httpx.post(f"{follower}/v1/nowhere", json={}, timeout=30)
            assert nowhere.status_code == 404 and "/v1/chat/completions" in nowhere.json()["error"]
