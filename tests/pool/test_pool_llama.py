"""The pool with real llama.cpp servers (the small Qwen model) on loopback ports as its nodes.

Two servers run at a time, one thread each, small windows, short answers (the machine has 2 shared cores).
``node-b`` (the survivor) lives for the module; each test that kills a node starts its own ``node-a``, which
wins ties by name and so gets the first attempt.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import ollama
import openai
import pytest

from sentinel.index.db import open_index
from sentinel.settings import ProviderSettings, Settings
from sentinel.tools.registry import tool_schemas
from services.api.app import create_app
from tests.pool.nodes import kill_llama, running_agent, slot_tasks, wait_for
from tests.support.llama import MODEL_ALIAS, llama_server
from tests.support.servers import free_port, serve

pytestmark = pytest.mark.slow

CTX = 2048
SHORT = [{"role": "user", "content": "Say hello."}]
# ~700 tokens: a prefill of several seconds on one thread, so the node can be killed before its first token.
LONG = [{"role": "user", "content": "Add up these numbers: " + " ".join(str(n) for n in range(100, 300))}]
COUNTING = [{"role": "user", "content": "Count from 1 to 100, one number per line."}]
# Agents in other processes are believed only under the gateway's pool secret (an unsigned record is refused).
SECRET = "llama-pool-secret-0123456789"


@pytest.fixture
def pool_settings(pool_settings: Settings) -> Settings:
    pool_settings.pool.secret = SECRET
    return pool_settings


@pytest.fixture(scope="module")
def survivor() -> Iterator[str]:
    with llama_server(port=free_port(), ctx=CTX, threads=1, embeddings=True) as url:
        yield url


@contextmanager
def _nodes(settings: Settings, servers: dict[str, str]) -> Iterator[None]:
    """Node agents (in threads) registering each ``{node: server url}``."""
    with ExitStack() as stack:
        for node, url in servers.items():
            stack.enter_context(running_agent(settings, node, f"openai={url}"))
        yield


def _cluster(gateway: str) -> dict[str, Any]:
    return {n["node"]: n for n in httpx.get(f"{gateway}/api/cluster", timeout=10).json()["nodes"]}


def _metric(gateway: str, line_start: str) -> float:
    for line in httpx.get(f"{gateway}/metrics", timeout=10).text.splitlines():
        if line.startswith(line_start):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_routing_prefers_the_node_with_the_model_loaded(pool_settings: Settings, gateway: str, survivor: str) -> None:
    # node-0 would win a tie by name, but its server has unloaded the model to sleep.
    with (
        llama_server(port=free_port(), ctx=CTX, threads=1, sleep_idle_s=1) as sleeper,
        _nodes(pool_settings, {"node-0": sleeper, "node-b": survivor}),
    ):
        wait_for(lambda: _cluster(gateway)["node-0"]["backends"][0]["loaded"] == [], 60, "node-0 to sleep")
        assert _cluster(gateway)["node-b"]["backends"][0]["loaded"] == [MODEL_ALIAS]
        body = {"model": MODEL_ALIAS, "messages": SHORT, "max_tokens": 2}
        answer = httpx.post(f"{gateway}/v1/chat/completions", json=body, timeout=120)
        assert answer.status_code == 200, answer.text
        assert answer.headers["x-sentinel-node"] == "node-b"
        root = sleeper.removesuffix("/v1")
        assert httpx.get(f"{root}/props", timeout=10).json()["is_sleeping"]  # never disturbed


def test_a_node_killed_before_its_first_token_is_failed_over(
    pool_settings: Settings, gateway: str, survivor: str
) -> None:
    with (
        llama_server(port=free_port(), ctx=CTX, threads=1) as victim,
        _nodes(pool_settings, {"node-a": victim, "node-b": survivor}),
    ):
        result: dict[str, Any] = {}
        body = {"model": MODEL_ALIAS, "messages": LONG, "max_tokens": 4, "stream": True, "temperature": 0}

        def ask() -> None:
            with httpx.stream("POST", f"{gateway}/v1/chat/completions", json=body, timeout=300) as response:
                result["node"] = response.headers.get("x-sentinel-node")
                result["events"] = [line for line in response.iter_lines() if line.startswith("data:")]

        client = threading.Thread(target=ask)
        client.start()
        root = victim.removesuffix("/v1")
        wait_for(lambda: httpx.get(f"{root}/slots", timeout=30).json()[0]["is_processing"], 60, "node-a to start")
        kill_llama(victim)  # mid-prefill: no token has left node-a
        client.join(300)
    assert result["node"] == "node-b"
    assert result["events"][-1] == "data: [DONE]"
    assert not any('"error"' in event for event in result["events"])
    assert _metric(gateway, f'sentinel_pool_failovers_total{{model="{MODEL_ALIAS}",node="node-a"}}') == 1


def test_a_node_killed_mid_stream_gives_an_explicit_error_and_no_duplicate(
    pool_settings: Settings, gateway: str, survivor: str
) -> None:
    with (
        llama_server(port=free_port(), ctx=CTX, threads=1) as victim,
        _nodes(pool_settings, {"node-a": victim, "node-b": survivor}),
    ):
        tasks_before = slot_tasks(survivor)
        client = openai.OpenAI(base_url=f"{gateway}/v1", api_key="unused", max_retries=0)
        stream = client.chat.completions.create(
            model=MODEL_ALIAS,
            messages=COUNTING,
            stream=True,
            max_tokens=200,
            temperature=0,
        )
        received: list[str] = []
        with pytest.raises(openai.APIError, match="node node-a was lost mid-stream") as lost:
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    received.append(chunk.choices[0].delta.content)
                    if len(received) == 3:
                        kill_llama(victim)
        assert len(received) >= 3 and "not re-run elsewhere" in lost.value.message
        assert slot_tasks(survivor) == tasks_before  # node-b never saw the request: no duplicate
    assert _metric(gateway, "sentinel_pool_failovers_total") == 0
    labels = f'endpoint="/v1/chat/completions",model="{MODEL_ALIAS}",node="node-a",outcome="broken"'
    assert _metric(gateway, f"sentinel_pool_requests_total{{{labels}}}") == 1


def test_a_node_whose_heartbeat_stops_leaves_the_pool(pool_settings: Settings, gateway: str, survivor: str) -> None:
    environment = os.environ | {
        "SENTINEL_REDIS_URL": pool_settings.redis_url,
        "SENTINEL_REDIS_PREFIX": pool_settings.redis_prefix,
        "SENTINEL_POOL__SECRET": SECRET,
    }
    agent = subprocess.Popen(
        [str(Path(sys.executable).with_name("sentinel")), "pool", "agent", "--node", "node-x", "--backend",
         f"openai={survivor}", "--heartbeat", "0.3", "--ttl", "1.5"],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for(lambda: _cluster(gateway).get("node-x", {}).get("state") == "up", 60, "node-x to register")
        ask = {"model": MODEL_ALIAS, "messages": SHORT, "max_tokens": 2}
        assert httpx.post(f"{gateway}/v1/chat/completions", json=ask, timeout=120).status_code == 200
        agent.send_signal(signal.SIGKILL)  # the agent dies: no goodbye, only silence
        agent.wait(10)
        wait_for(lambda: _cluster(gateway)["node-x"]["state"] == "away", 5, "node-x to leave after its TTL")
        gone = httpx.post(f"{gateway}/v1/chat/completions", json=ask, timeout=120)
        assert gone.status_code == 404 and "no live node serves model" in gone.text
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait(10)


def test_the_official_openai_and_ollama_clients_work_unchanged(
    pool_settings: Settings, gateway: str, survivor: str
) -> None:
    with running_agent(pool_settings, "node-b", f"openai={survivor}"):
        client = openai.OpenAI(base_url=f"{gateway}/v1", api_key="unused", max_retries=0)
        assert [m.id for m in client.models.list()] == [MODEL_ALIAS]
        reply = client.chat.completions.create(model=MODEL_ALIAS, messages=SHORT, max_tokens=8, temperature=0)
        assert reply.choices[0].message.content and reply.usage and reply.usage.completion_tokens
        streamed = client.chat.completions.create(
            model=MODEL_ALIAS,
            messages=SHORT,
            max_tokens=8,
            temperature=0,
            stream=True,
        )
        text = "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
        assert text == reply.choices[0].message.content  # temperature 0: the same answer either way
        vectors = client.embeddings.create(model=MODEL_ALIAS, input=["a note", "another note"])
        assert len(vectors.data) == 2 and len(vectors.data[0].embedding) == 896

        local = ollama.Client(host=gateway)
        assert [m.model for m in local.list().models] == [MODEL_ALIAS]
        options = {"temperature": 0, "num_predict": 8}
        answer = local.chat(model=MODEL_ALIAS, messages=SHORT, options=options)
        assert answer.message.content == text and answer.done and answer.eval_count
        parts = list(local.chat(model=MODEL_ALIAS, messages=SHORT, options=options, stream=True))
        assert "".join(p.message.content or "" for p in parts) == text and parts[-1].done
        embedded = local.embed(model=MODEL_ALIAS, input="a note")
        assert len(embedded.embeddings) == 1 and len(embedded.embeddings[0]) == 896


@contextmanager
def _celery_worker(settings: Settings, name: str, model_url: str, queues: str, log: Path) -> Iterator[None]:
    """A real Celery worker process (solo pool) whose extraction model is the llama.cpp server at ``model_url``."""
    environment = os.environ | {
        "SENTINEL_REDIS_URL": settings.redis_url,
        "SENTINEL_REDIS_PREFIX": settings.redis_prefix,
        "SENTINEL_VAULT": str(settings.vault),
        "SENTINEL_INDEX_PATH": str(settings.index_path),
        "SENTINEL_EXTRACTION__KIND": "openai",
        "SENTINEL_EXTRACTION__BASE_URL": model_url,
        "SENTINEL_EXTRACTION__MODEL": MODEL_ALIAS,
        "SENTINEL_EXTRACTION__NUM_CTX": str(CTX),
    }
    celery = str(Path(sys.executable).with_name("celery"))
    command = [celery, "-A", "services.worker.celery_app", "worker", "--pool", "solo", "-n", f"{name}@%h", "-Q", queues,
               "--without-gossip", "--without-mingle", "--loglevel", "INFO"]  # fmt: skip
    with log.open("w") as output:
        worker = subprocess.Popen(command, env=environment, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: "ready" in log.read_text(), 60, f"worker {name} to be ready")
        yield
    finally:
        worker.terminate()
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def test_page_analyses_fan_out_to_every_worker_that_serves_the_model(
    pool_settings: Settings, survivor: str, tmp_path: Path
) -> None:
    for number in range(4):
        page = pool_settings.vault / "notes" / f"Appliance {number}.md"
        page.write_text(f"# Appliance {number}\nA toaster browns bread; a kettle boils water.\n")
    pool_settings.extraction = ProviderSettings(kind="openai", base_url=survivor, model=MODEL_ALIAS, num_ctx=CTX)
    queue = f"sentinel.analyse.{MODEL_ALIAS}"
    with (
        llama_server(port=free_port(), ctx=CTX, threads=1) as second,
        serve(create_app(pool_settings)) as api,  # syncs the index at start: five pages due
        _celery_worker(pool_settings, "vault", survivor, f"celery,{queue}", tmp_path / "vault.log"),
        _celery_worker(pool_settings, "gpu-box", second, queue, tmp_path / "gpu-box.log"),
    ):
        accepted = httpx.post(f"{api}/api/pool/analyses", timeout=60)
        assert accepted.status_code == 202, accepted.text
        answer = accepted.json()
        assert (answer["status"], answer["queued"], answer["phase"]) == ("accepted", 5, "non-derived")
        assert answer["accepted_means"].startswith("queued, not done")
        db = open_index(pool_settings, readonly=True)

        def analysed() -> list[tuple[str, str, str]]:
            return db.execute("SELECT path, status, model FROM analysis ORDER BY path").fetchall()

        wait_for(lambda: len(analysed()) == 5, 400, "five analyses to be stored")
        rows = analysed()
        db.close()
    workers = {model.rsplit(" on ", 1)[1].split("@")[0] for _, _, model in rows}
    assert workers == {"vault", "gpu-box"}, rows  # both machines took pages: adding one adds throughput
    assert [status for _, status, _ in rows].count("ok") >= 4, rows


def test_the_real_small_model_s_text_call_reaches_the_client_as_a_tool_call(
    pool_settings: Settings, gateway: str, survivor: str
) -> None:
    """Qwen2.5-Coder 0.5B on llama.cpp (--jinja) writes its call as text; through the gateway the client gets a
    real tool call to an offered tool, streamed and not, and the metrics say how it came (native, constrained by the
    gateway's schema, or repaired)."""
    tools = [t for t in tool_schemas() if t["function"]["name"] in ("search", "read")]  # fits the small window
    ask = [{"role": "user", "content": "Search my vault for the growth queue."}]
    body = {"model": MODEL_ALIAS, "messages": ask, "tools": tools, "temperature": 0, "seed": 1, "max_tokens": 80}
    with _nodes(pool_settings, {"node-b": survivor}):
        client = openai.OpenAI(base_url=f"{gateway}/v1", api_key="local")
        plain = client.chat.completions.create(**body)  # type: ignore[call-overload]
        (call,) = plain.choices[0].message.tool_calls
        assert call.function.name in ("search", "read") and isinstance(json.loads(call.function.arguments), dict)
        streamed = client.chat.completions.create(**body, stream=True)  # type: ignore[call-overload]
        names = [
            c.function.name for chunk in streamed for choice in chunk.choices for c in choice.delta.tool_calls or []
        ]
        assert names == [call.function.name]
    outcomes = f'sentinel_pool_tool_answers_total{{model="{MODEL_ALIAS}",outcome='
    assert sum(_metric(gateway, f'{outcomes}"{how}"}}') for how in ("native", "constrained", "repaired")) == 2
