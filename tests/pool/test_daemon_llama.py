"""End to end with a real model: llama.cpp (the small Qwen) behind one daemon, the client at the other's address.
A chat and a job both reach the model through the leader and come back with its answer."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.pool.daemons import daemons, wait_for_leader
from tests.support.llama import MODEL_ALIAS, llama_server
from tests.support.servers import free_port

pytestmark = pytest.mark.slow

SAY = {"model": MODEL_ALIAS, "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 8}


def test_real_llama_cpp_behind_a_daemon_answers_chat_and_jobs_through_another(tmp_path: Path) -> None:
    with llama_server(port=free_port(), ctx=1024, threads=1) as base:
        ports = [free_port(), free_port()]
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        specs = [
            {"node": "leader", "host": "127.0.0.1", "port": ports[0], "vram": 8_000, "peers": [urls[1]]},
            {"node": "cpu", "host": "127.0.0.1", "port": ports[1], "backends": [f"openai={base}"], "peers": [urls[0]]},
        ]
        with daemons(specs, tmp_path) as (leader, cpu):
            assert wait_for_leader([leader, cpu])[0] == "leader"
            deadline = time.monotonic() + 30
            while not httpx.get(f"{cpu.url}/api/cluster", timeout=10).json()["nodes"][0]["backends"]:
                assert time.monotonic() < deadline
                time.sleep(0.2)
            chat = httpx.post(f"{cpu.url}/v1/chat/completions", json=SAY, timeout=300)
            assert chat.status_code == 200 and chat.headers["x-sentinel-node"] == "cpu"
            assert chat.json()["choices"][0]["message"]["content"].strip()
            job = httpx.post(f"{leader.url}/api/jobs", json={"kind": "inference", "body": SAY}, timeout=10).json()
            deadline = time.monotonic() + 300
            while (state := httpx.get(f"{cpu.url}/api/jobs/{job['job']}", timeout=10).json())["state"] != "done":
                assert state["state"] in ("queued", "running") and time.monotonic() < deadline, state
                time.sleep(0.3)
            assert state["node"] == "cpu" and state["result"]["choices"][0]["message"]["content"].strip()
