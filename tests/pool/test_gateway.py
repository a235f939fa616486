"""The gateway in the real API app, over real Redis, with Ollama/OpenAI-shaped servers on loopback as nodes
(no model needed): failover, pass-through of the request's own errors, refusals, the cluster view, metrics,
Ollama's dialect, and wake-on-LAN received on a loopback UDP socket."""

from __future__ import annotations

import socket
from typing import Any

import httpx
from redis import Redis

from sentinel.settings import Settings
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish
from services.api.app import create_app
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.servers import free_port, serve

MODEL = "tiny"
ASK = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def _answering(name: str, status: int = 200) -> HttpStub:
    """An OpenAI-shaped server that says who it is (or fails with ``status``)."""

    def respond(request: RecordedRequest) -> tuple[int, Any]:
        if status != 200:
            return status, {"error": {"message": f"{name} says no", "code": status}}
        if request.path == "/v1/embeddings":
            return 200, {"data": [{"index": 0, "embedding": [0.5, 0.25]}], "usage": {"prompt_tokens": 1}}
        message = {"role": "assistant", "content": f"answered by {name}"}
        usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
        return 200, {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }

    return HttpStub(respond)


def _register(redis: Redis, keys: PoolKeys, node: str, url: str, *, mac: str = "", loaded: bool = True) -> None:
    backend = BackendRecord(url=url, kind="openai", models=[MODEL], loaded=[MODEL] if loaded else [], slots=1)
    publish(redis, keys, NodeRecord(node=node, mac=mac, backends=[backend]), ttl_s=60)


def test_a_node_that_died_since_its_heartbeat_is_failed_over(gateway: str, redis_client: Redis, keys: PoolKeys) -> None:
    with _answering("node-b") as alive:
        _register(redis_client, keys, "node-a", f"http://127.0.0.1:{free_port()}/v1")  # nothing listens there
        _register(redis_client, keys, "node-b", f"{alive.url}/v1")
        answer = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
        assert answer.status_code == 200, answer.text
        assert answer.headers["x-sentinel-node"] == "node-b"
        assert answer.json()["choices"][0]["message"]["content"] == "answered by node-b"
        assert alive.requests[0].body["model"] == MODEL
        metrics = httpx.get(f"{gateway}/metrics").text
        assert 'sentinel_pool_failovers_total{model="tiny",node="node-a"} 1.0' in metrics
        assert (
            'sentinel_pool_requests_total{endpoint="/v1/chat/completions",model="tiny",node="node-b",outcome="ok"} 1.0'
            in metrics
        )
        # a model nobody serves is the client's word, not a label value: counted as "other"
        assert httpx.post(f"{gateway}/v1/chat/completions", json=ASK | {"model": "made-up-7"}).status_code == 404
        metrics = httpx.get(f"{gateway}/metrics").text
        assert 'model="other",node="",outcome="unknown_model"} 1.0' in metrics and "made-up-7" not in metrics


def test_the_requests_own_error_is_passed_through_without_failover(
    gateway: str, redis_client: Redis, keys: PoolKeys
) -> None:
    with _answering("node-a", status=400) as refusing, _answering("node-b") as other:
        _register(redis_client, keys, "node-a", f"{refusing.url}/v1")
        _register(redis_client, keys, "node-b", f"{other.url}/v1")
        answer = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
        assert answer.status_code == 400 and answer.json()["error"]["message"] == "node-a says no"
        assert other.requests == []


def test_a_job_that_is_not_idempotent_goes_to_one_node_only(gateway: str, redis_client: Redis, keys: PoolKeys) -> None:
    with _answering("node-a", status=500) as failing, _answering("node-b") as other:
        _register(redis_client, keys, "node-a", f"{failing.url}/v1")
        _register(redis_client, keys, "node-b", f"{other.url}/v1")
        answer = httpx.post(
            f"{gateway}/v1/chat/completions", json=ASK, headers={"x-sentinel-idempotent": "false"}, timeout=30
        )
        assert answer.status_code == 503
        assert "not idempotent and was already sent to a node: never re-run" in answer.json()["error"]["message"]
        assert len(failing.requests) == 1 and other.requests == []
        # an idempotent one moves on to node-b
        assert httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30).headers["x-sentinel-node"] == "node-b"


def test_refusals_say_what_the_pool_has(gateway: str, redis_client: Redis, keys: PoolKeys) -> None:
    unknown = httpx.post(f"{gateway}/v1/chat/completions", json=ASK | {"model": "nope"}, timeout=30)
    assert unknown.status_code == 404
    assert "no live node serves model 'nope'; the pool serves: none (no node is registered)" in unknown.text
    no_model = httpx.post(f"{gateway}/v1/chat/completions", json={"messages": []}, timeout=30)
    assert no_model.status_code == 400 and "has no 'model'" in no_model.text
    not_json = httpx.post(f"{gateway}/v1/chat/completions", content=b"{", timeout=30)
    assert not_json.status_code == 400 and "not JSON" in not_json.text
    _register(redis_client, keys, "node-a", f"http://127.0.0.1:{free_port()}/v1")
    _register(redis_client, keys, "node-b", f"http://127.0.0.1:{free_port()}/v1")
    exhausted = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
    assert exhausted.status_code == 503
    message = exhausted.json()["error"]["message"]
    assert message.startswith("no node could serve model 'tiny': node-a (") and "; node-b (" in message


def test_cluster_models_and_ollama_listings(gateway: str, redis_client: Redis, keys: PoolKeys) -> None:
    with _answering("node-a") as node:
        _register(redis_client, keys, "node-a", f"{node.url}/v1", mac="aa:bb:cc:dd:ee:ff")
        _register(redis_client, keys, "node-b", f"{node.url}/v1", loaded=False)
        redis_client.delete(keys.node("node-b"))  # node-b went to sleep
        cluster = httpx.get(f"{gateway}/api/cluster").json()
        assert [(n["node"], n["state"], n["wakeable"]) for n in cluster["nodes"]] == [
            ("node-a", "up", True),
            ("node-b", "away", False),
        ]
        assert cluster["models"] == {MODEL: ["node-a"]} and cluster["totals"]["nodes_up"] == 1
        assert [m["id"] for m in httpx.get(f"{gateway}/v1/models").json()["data"]] == [MODEL]
        assert [m["name"] for m in httpx.get(f"{gateway}/api/tags").json()["models"]] == [MODEL]
        assert [m["name"] for m in httpx.get(f"{gateway}/api/ps").json()["models"]] == [MODEL]
        assert "sentinel_pool_nodes_up 1.0" in httpx.get(f"{gateway}/metrics").text


def test_ollama_dialect_is_translated_both_ways(gateway: str, redis_client: Redis, keys: PoolKeys) -> None:
    with _answering("node-a") as node:
        _register(redis_client, keys, "node-a", f"{node.url}/v1")
        body = ASK | {"stream": False, "format": "json", "options": {"temperature": 0, "num_predict": 9, "num_ctx": 99}}
        answer = httpx.post(f"{gateway}/api/chat", json=body, timeout=30).json()
        sent = node.requests[-1].body
        assert sent["response_format"] == {"type": "json_object"} and sent["max_tokens"] == 9
        assert sent["temperature"] == 0 and "num_ctx" not in str(sent)
        assert answer["message"] == {"role": "assistant", "content": "answered by node-a"}
        assert (answer["done"], answer["prompt_eval_count"], answer["eval_count"]) == (True, 3, 4)
        embedded = httpx.post(f"{gateway}/api/embed", json={"model": MODEL, "input": "x"}, timeout=30).json()
        assert embedded["embeddings"] == [[0.5, 0.25]]
        bad = httpx.post(f"{gateway}/api/chat", json={"model": MODEL, "messages": "hi"}, timeout=30)
        assert bad.status_code == 400 and bad.json() == {
            "error": "'messages' must be a list of {role, content} objects"
        }


def test_wake_on_lan_sends_the_magic_packet_to_the_stored_mac(
    pool_settings: Settings, redis_client: Redis, keys: PoolKeys
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        receiver.settimeout(10)
        pool_settings.pool.wake_address, pool_settings.pool.wake_port = "127.0.0.1", receiver.getsockname()[1]
        _register(redis_client, keys, "sleepy", "http://127.0.0.1:9/v1", mac="AA:BB:CC:DD:EE:0F")
        _register(redis_client, keys, "no-mac", "http://127.0.0.1:9/v1")
        with serve(create_app(pool_settings)) as gateway:
            answer = httpx.post(f"{gateway}/api/nodes/wake/sleepy", timeout=30)
            assert answer.status_code == 200 and answer.json()["mac"] == "aa:bb:cc:dd:ee:0f"
            packet = receiver.recv(1024)
            assert packet == b"\xff" * 6 + bytes.fromhex("aabbccddee0f") * 16
            unknown = httpx.post(f"{gateway}/api/nodes/wake/ghost", timeout=30)
            assert unknown.status_code == 404 and "never registered" in unknown.text
            no_mac = httpx.post(f"{gateway}/api/nodes/wake/no-mac", timeout=30)
            assert no_mac.status_code == 404 and "registered no MAC address" in no_mac.text
