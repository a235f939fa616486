"""The registry in real Redis, the agent's probes against Ollama- and OpenAI-shaped servers on loopback, and
the agent's refusals of settings that cannot describe a node."""

from __future__ import annotations

import asyncio
import os
import stat
import time
from pathlib import Path

import httpx
import pytest
from redis import Redis
from redis.asyncio import Redis as AsyncRedis

from sentinel.settings import Settings
from sentinel_pool.agent import Agent, AgentSettingsInvalid
from sentinel_pool.probe import BackendSpec, BackendSpecInvalid, probe_backend
from sentinel_pool.registry import (
    BackendRecord,
    KnownNode,
    NodeRecord,
    PoolKeys,
    Snapshot,
    known_nodes,
    publish,
    snapshot,
    withdraw,
)
from sentinel_pool.vram import Vram, probe_vram
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.redis_prefix import REDIS_URL


def _snapshot(keys: PoolKeys) -> tuple[Snapshot, dict[str, KnownNode]]:
    async def read() -> tuple[Snapshot, dict[str, KnownNode]]:
        client = AsyncRedis.from_url(REDIS_URL, decode_responses=True)
        try:
            return await snapshot(client, keys), await known_nodes(client, keys)
        finally:
            await client.aclose()

    return asyncio.run(read())


def _record(node: str, mac: str = "") -> NodeRecord:
    backend = BackendRecord(url=f"http://{node}:8080/v1", kind="openai", models=["m"], loaded=["m"], slots=1)
    return NodeRecord(node=node, mac=mac, backends=[backend])


def test_a_record_lives_for_its_ttl_and_is_remembered_for_waking(redis_client: Redis, keys: PoolKeys) -> None:
    publish(redis_client, keys, _record("node-a", mac="AA-BB-CC-DD-EE-01"), ttl_s=0.5)
    publish(redis_client, keys, _record("node-b"), ttl_s=30)
    live, known = _snapshot(keys)
    assert [n.node for n in live.nodes] == ["node-a", "node-b"]
    assert live.active == {("node-a", "http://node-a:8080/v1"): 0, ("node-b", "http://node-b:8080/v1"): 0}
    time.sleep(0.7)  # node-a stopped heartbeating
    live, known = _snapshot(keys)
    assert [n.node for n in live.nodes] == ["node-b"]
    assert redis_client.smembers(keys.nodes) == {"node-b"}  # the index forgot it too
    assert known["node-a"].mac == "aa:bb:cc:dd:ee:01"  # but it can still be woken
    withdraw(redis_client, keys, "node-b")
    assert _snapshot(keys)[0].nodes == []


def test_node_names_and_macs_are_checked() -> None:
    with pytest.raises(ValueError, match="node name 'a b' is not usable"):
        NodeRecord(node="a b")
    with pytest.raises(ValueError, match="six hex pairs"):
        NodeRecord(node="a", mac="aa:bb:cc")


def _ollama(request: RecordedRequest) -> tuple[int, object]:
    if request.path == "/api/tags":
        return 200, {"models": [{"name": "llama3.1:8b", "model": "llama3.1:8b"}, {"name": "qwen2.5:0.5b"}]}
    if request.path == "/api/ps":
        return 200, {"models": [{"name": "qwen2.5:0.5b", "model": "qwen2.5:0.5b", "size_vram": 1}]}
    return 404, {"error": "not found"}


def _generic_openai(request: RecordedRequest) -> tuple[int, object]:
    if request.path == "/v1/models":
        return 200, {"object": "list", "data": [{"id": "gpt-local", "object": "model"}]}
    return 404, {"error": "no such route"}


def test_probes_read_ollama_and_generic_openai_servers() -> None:
    with HttpStub(_ollama) as ollama, HttpStub(_generic_openai) as generic, httpx.Client() as http:
        seen = probe_backend(http, BackendSpec.parse(f"ollama={ollama.url}/"))
        assert seen == BackendRecord(
            url=f"{ollama.url}/v1", kind="ollama", models=["llama3.1:8b", "qwen2.5:0.5b"], loaded=["qwen2.5:0.5b"]
        )
        seen = probe_backend(http, BackendSpec.parse(f"openai={generic.url}/v1"))
        # no llama.cpp /props: what it lists counts as loaded, slots unknown
        assert (seen.models, seen.loaded, seen.slots, seen.problem) == (["gpt-local"], ["gpt-local"], None, "")
        down = probe_backend(http, BackendSpec.parse("openai=http://127.0.0.1:9/v1"))
        assert down.problem.startswith("ConnectError") and down.models == []


def test_backend_specs_must_be_kind_equals_url() -> None:
    assert BackendSpec.parse("ollama=http://h:11434").openai_base == "http://h:11434/v1"
    assert BackendSpec.parse("openai=http://h:8080/v1").root == "http://h:8080"
    for bad in ("http://h:11434", "vllm=http://h", "ollama=h:11434"):
        with pytest.raises(BackendSpecInvalid, match="is not kind=url"):
            BackendSpec.parse(bad)


def test_free_vram_from_nvidia_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # nvidia-smi cannot run on these machines: a script printing its documented CSV shape (two GPUs) stands in.
    fake = tmp_path / "nvidia-smi"
    fake.write_text("#!/bin/sh\nprintf '81000, 81559\\n1000, 24564\\n'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert probe_vram() == Vram(82000, 106123, "nvidia-smi")
    assert probe_vram("no-such-nvidia-smi", "no-such-rocm-smi", tmp_path / "no-drm").source == "unknown"


def test_the_agent_registers_what_it_probed(pool_settings: Settings, redis_client: Redis, keys: PoolKeys) -> None:
    with HttpStub(_ollama) as ollama:
        pool = pool_settings.pool.model_copy(update={"node": "gpu-1", "backends": [f"ollama={ollama.url}"]})
        agent = Agent(pool_settings.model_copy(update={"pool": pool}), redis_client)
        agent.beat()
    live, known = _snapshot(keys)
    assert [(n.node, n.backends[0].loaded) for n in live.nodes] == [("gpu-1", ["qwen2.5:0.5b"])]
    assert "gpu-1" in known


@pytest.mark.parametrize(
    ("update", "message"),
    [
        ({"backends": []}, "no backend to register"),
        ({"backends": ["http://x"]}, "is not kind=url"),
        ({"backends": ["ollama=http://x"], "mac": "zz"}, "six hex pairs"),
        ({"backends": ["ollama=http://x"], "node": "no/slash"}, "is not usable"),
        ({"backends": ["ollama=http://x"], "ttl_s": 1.0, "heartbeat_s": 1.0}, "must exceed heartbeat_s"),
    ],
)
def test_the_agent_refuses_settings_that_cannot_describe_a_node(
    pool_settings: Settings, redis_client: Redis, update: dict[str, object], message: str
) -> None:
    pool = pool_settings.pool.model_copy(update={"node": "n"} | update)
    with pytest.raises(AgentSettingsInvalid, match=message):
        Agent(pool_settings.model_copy(update={"pool": pool}), redis_client)
