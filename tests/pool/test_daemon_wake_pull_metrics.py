"""Daemons as separate processes: wake-on-LAN (a real UDP listener gets the magic packet; a node that comes up
after it serves the request that woke it, and one that never comes costs a bounded wait), ``/api/pull`` forwarded
to the one node's Ollama, ``/metrics`` whose labels a client cannot grow, and ``/api/leader``."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from tests.pool.daemons import DaemonProcess, daemons, start_daemon, wait_for_leader, wait_up
from tests.pool.nodes import recorded_node, wait_for
from tests.pool.test_daemons import ASK, MODEL, _specs
from tests.support.servers import serve

MAC = "aa:bb:cc:dd:ee:02"
MAGIC = b"\xff" * 6 + bytes.fromhex(MAC.replace(":", "")) * 16


def _cluster_state(leader: DaemonProcess, node: str) -> str | None:
    return next((n["state"] for n in leader.get("/api/cluster").json()["nodes"] if n["node"] == node), None)


@contextmanager
def _wol_listener() -> Iterator[tuple[int, list[bytes], threading.Event]]:
    """A UDP socket on loopback where node-b's magic packets are sent: yields its port, the packets it got, and
    an event set on each one."""
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(0.2)
    packets: list[bytes] = []
    got, stop = threading.Event(), threading.Event()

    def listen() -> None:
        while not stop.is_set():
            try:
                packets.append(receiver.recv(1024))
                got.set()
            except TimeoutError:
                continue

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    try:
        yield receiver.getsockname()[1], packets, got
    finally:
        stop.set()
        thread.join(5)
        receiver.close()


def test_a_sleeping_node_is_woken_by_hand_and_on_demand_and_the_wait_is_bounded(tmp_path: Path) -> None:
    with recorded_node(["woken"], MODEL) as one, _wol_listener() as (port, packets, got):
        specs = _specs([16_000, 8_000], [[], [f"openai={one}/v1"]])
        specs[0]["env"] = {"SENTINEL_POOL__WAKE_WAIT_S": "20"}
        wake = {"SENTINEL_POOL__MAC": MAC, "SENTINEL_POOL__WAKE_ADDRESS": "127.0.0.1"}
        specs[1]["env"] = wake | {"SENTINEL_POOL__WAKE_PORT": str(port)}
        with daemons(specs, tmp_path) as group:
            leader = group[0]
            assert wait_for_leader(group)[0] == "node-a"
            wait_for(lambda: _cluster_state(leader, "node-b") == "up", 20, "node-b to join")
            by_hand = group[1].post("/api/nodes/wake/node-b", {})
            assert by_hand.status_code == 202 and by_hand.json()["sent_to"] == f"127.0.0.1:{port}"
            assert got.wait(5) and packets == [MAGIC]
            unknown = leader.post("/api/nodes/wake/node-z", {})
            assert unknown.status_code == 404 and "node-b" in unknown.json()["error"]

            group[1].kill()  # node-b goes to sleep
            wait_for(lambda: _cluster_state(leader, "node-b") == "asleep", 20, "node-b to be seen asleep")
            got.clear()

            def comes_up_after_the_packet() -> None:
                if got.wait(30):
                    group.append(start_daemon(specs[1], tmp_path))

            waking = threading.Thread(target=comes_up_after_the_packet)
            waking.start()
            began = time.monotonic()
            answer = httpx.post(f"{leader.url}/v1/chat/completions", json=ASK, timeout=60)
            waited = time.monotonic() - began
            waking.join(30)
            assert answer.status_code == 200, answer.text
            assert answer.headers["x-sentinel-node"] == "node-b" and "woken" in answer.text
            assert packets[-1] == MAGIC and len(packets) == 2 and waited < 20
            wait_up(group[-1])

            group[-1].kill()  # asleep again, and this time it never comes
            wait_for(lambda: _cluster_state(leader, "node-b") == "asleep", 20, "node-b to be seen asleep")
            began = time.monotonic()
            never = httpx.post(f"{leader.url}/v1/chat/completions", json=ASK, timeout=60)
            waited = time.monotonic() - began
            assert never.status_code == 503 and never.json()["error"]["code"] == "node_asleep"
            assert int(never.headers["retry-after"]) >= 1 and 19 < waited < 30 and len(packets) == 3


@contextmanager
def _ollama(pulled: list[dict[str, Any]]) -> Iterator[str]:
    """An Ollama-shaped server: lists one model, and streams pull progress as Ollama does (JSON lines)."""
    app = FastAPI()

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/api/tags")
    def tags() -> dict[str, Any]:
        return {"models": [{"name": "qwen3:latest", "model": "qwen3:latest"}]}

    @app.get("/api/ps")
    def ps() -> dict[str, Any]:
        return {"models": []}

    @app.post("/api/pull")
    async def pull(request: Request) -> StreamingResponse:
        pulled.append(await request.json())
        lines = [{"status": "pulling manifest"}, {"status": "downloading", "completed": 5, "total": 10}]
        lines.append({"status": "success"})
        return StreamingResponse((json.dumps(line) + "\n" for line in lines), media_type="application/x-ndjson")

    with serve(app) as url:
        yield url


def test_pull_goes_to_the_ollama_node_metrics_labels_are_bounded_and_the_leader_says_its_term(tmp_path: Path) -> None:
    pulled: list[dict[str, Any]] = []
    with _ollama(pulled) as ollama, recorded_node(["hi"], MODEL) as one:
        specs = _specs([16_000, 8_000, 8_000], [[], [f"ollama={ollama}"], [f"openai={one}/v1"]])
        with daemons(specs, tmp_path) as group:
            leader, term = wait_for_leader(group)
            assert leader == "node-a"
            wait_for(lambda: _cluster_state(group[0], "node-c") == "up", 20, "node-c to join")
            wait_for(lambda: "qwen3:latest" in group[0].get("/api/cluster").json()["models"], 20, "node-b's models")
            answer = group[2].post("/api/pull", {"model": "qwen3:0.6b"})
            assert answer.status_code == 200 and answer.headers["x-sentinel-node"] == "node-b"
            assert [json.loads(line)["status"] for line in answer.text.splitlines()][-1] == "success"
            assert pulled == [{"model": "qwen3:0.6b"}]
            refused = httpx.post(f"{group[2].url}/api/pull?node=node-c", json={"model": "x"}, timeout=10)
            assert refused.status_code == 404 and "no Ollama backend" in refused.json()["error"]

            assert group[1].post("/v1/chat/completions", ASK).status_code == 200
            for made_up in ("made-up-1", "made-up-2"):
                assert group[1].post("/v1/chat/completions", ASK | {"model": made_up}).status_code == 404
            text = group[0].get("/metrics").text
            served = 'endpoint="/v1/chat/completions",model="tiny",node="node-c",outcome="ok"} 1.0'
            assert "sentinel_pool_requests_total{" + served in text
            assert 'model="other",node="",outcome="unknown_model"} 2.0' in text and "made-up" not in text
            assert "sentinel_pool_leading 1.0" in text and f"sentinel_pool_term {float(term)}" in text
            assert "sentinel_pool_leading 0.0" in group[1].get("/metrics").text

            said = group[1].get("/api/leader").json()
            assert (said["leader"], said["term"], said["leading"]) == ("node-a", term, False)
            assert said["since"] <= time.time() and said["for_s"] >= 0 and said["peers_live"] == ["node-a", "node-c"]
