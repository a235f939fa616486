"""Daemons as separate processes on loopback, found through static peers: the best hardware is elected (ties by
name, stably), a leader killed mid-job is replaced and the job finishes under the new leader (its client polls
it through another daemon's address), a stale leader's assignment is refused by epoch and term, an unsigned
message is believed by nobody, a shell job on a node that dies is not re-run, chat goes through any daemon."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

import httpx

from tests.pool.daemons import daemons, leaders, wait_for_leader
from tests.pool.nodes import recorded_node
from tests.support.servers import free_port

MODEL = "tiny"
ASK = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def _specs(vrams: list[int], backends: list[list[str]], gpus: list[str] | None = None) -> list[dict[str, object]]:
    ports = [free_port() for _ in vrams]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    return [
        {
            "node": f"node-{chr(ord('a') + i)}",
            "host": "127.0.0.1",
            "port": ports[i],
            "vram": vram,
            "gpu": (gpus or [""] * len(vrams))[i],
            "backends": backends[i],
            "peers": [u for u in urls if u != urls[i]],
            "allow": ["sleep"],
        }
        for i, vram in enumerate(vrams)
    ]


def _poll(url: str, job: str, timeout: float) -> dict[str, object]:
    """A client polling its job until it is terminal, riding out an election (503 while there is no leader)."""
    deadline = time.monotonic() + timeout
    last: dict[str, object] = {}
    while time.monotonic() < deadline:
        try:
            answer = httpx.get(f"{url}/api/jobs/{job}", timeout=5)
        except httpx.TransportError:
            answer = None
        if answer is not None and answer.status_code == 200:
            last = answer.json()
            if last["state"] in ("done", "failed", "lost"):
                return last
        time.sleep(0.2)
    raise AssertionError(f"job {job} not terminal within {timeout} s: {last}")


def test_best_hardware_wins_ties_are_stable_and_a_killed_leaders_job_finishes(tmp_path: Path) -> None:
    with recorded_node(["slow ", "answer"], MODEL, piece_delay_s=1.5) as backend:
        specs = _specs([24_000, 24_100, 80_000], [[], [f"openai={backend}/v1"], []], ["", "RTX 4090", "H100"])
        with daemons(specs, tmp_path) as (a, b, c):
            assert wait_for_leader([a, b, c])[0] == "node-c"  # most free VRAM
            said = c.get("/api/leader").json()
            assert said["leading"] and said["url"] == c.url and said["since"] <= time.time()
            job = a.post("/api/jobs", {"kind": "inference", "body": ASK})  # through a follower's address
            assert job.status_code == 202 and job.json()["state"] == "queued" and "accepted means queued" in job.text
            job_id = job.json()["job"]
            deadline = time.monotonic() + 20
            while b.get("/api/leader").json()["leader"] == "node-c":  # wait until node-b runs it, then kill
                state = c.get(f"/api/jobs/{job_id}").json()
                if state["state"] == "running":
                    break
                assert time.monotonic() < deadline, state
                time.sleep(0.05)
            term = c.get("/api/leader").json()["term"]
            c.kill()
            leader, new_term = wait_for_leader([a, b])
            # equal VRAM in GiB (23): the GPU decides, node-b; a term that only grew
            assert leader == "node-b" and new_term > term
            finished = _poll(a.url, job_id, 30)
            assert finished["state"] == "done" and finished["absorbed"] is True and finished["node"] == "node-b"
            assert finished["result"]["choices"][0]["message"]["content"] == "slow answer"  # type: ignore[index]
            assert a.post(f"/api/jobs/{job_id}/ack", {}).json() == {"acknowledged": True}
            # chat through any daemon's address reaches the node that serves the model
            chat = httpx.post(f"{a.url}/v1/chat/completions", json=ASK, timeout=30)
            assert chat.status_code == 200 and chat.json()["choices"][0]["message"]["content"] == "slow answer"
            assert leaders([a, b]) == {"node-a": ("node-b", new_term), "node-b": ("node-b", new_term)}


def test_ties_break_by_name_stale_or_unsigned_assignments_are_refused_and_clients_need_keys(tmp_path: Path) -> None:
    with recorded_node(["x"], MODEL, piece_delay_s=3) as backend:
        specs = _specs([8_000, 8_000, 8_000], [[f"openai={backend}/v1"]] * 3)
        for spec in specs:  # the API's scoped keys, the same on every daemon
            spec["env"] = {"SENTINEL_API_KEYS": "read:reader-key-123,write:writer-key-456"}
        with daemons(specs, tmp_path) as group:
            _, b, _ = group
            leader, term = wait_for_leader(group)
            assert leader == "node-a"  # equal hardware: the lowest name, every time
            run = {"job": "j1", "kind": "inference", "epoch": 5, "term": term, "payload": {"body": ASK}}
            assert b.signed("/pool/v1/run", run).status_code == 202
            stale = b.signed("/pool/v1/run", run | {"epoch": 4})
            assert stale.status_code == 409 and "epoch 4 is not newer" in stale.json()["error"]
            # the leader asked about j4 at epoch 2 and b said "not here": that assignment, arriving late (from the
            # socket of a frozen daemon), is refused, since the leader may have sent j4 elsewhere meanwhile
            asked = b.signed_get("/pool/v1/jobs/j4/2")
            assert asked.status_code == 404 and asked.json()["fenced"] == 2
            late = b.signed("/pool/v1/run", run | {"job": "j4", "epoch": 2})
            assert late.status_code == 409 and "after the leader asked about epoch 2" in late.json()["error"]
            assert b.signed("/pool/v1/run", run | {"job": "j4", "epoch": 3}).status_code == 202  # a newer one runs
            old_leader = b.signed("/pool/v1/run", run | {"job": "j2", "epoch": 9, "term": term - 1})
            assert old_leader.status_code == 409 and f"term {term - 1} is older" in old_leader.json()["error"]
            unsigned = httpx.post(f"{b.url}/pool/v1/run", json=run | {"epoch": 6}, timeout=10)
            assert unsigned.status_code == 401 and "pool secret" in unsigned.text
            forged = b.signed("/pool/v1/run", run | {"epoch": 6}, secret="not-the-pool-secret-at-all")
            assert forged.status_code == 401 and "does not match" in forged.text
            rogue = {"node": "zz-rogue", "url": "http://127.0.0.1:9", "hardware": {"vram_free_mb": 200_000}}
            assert httpx.post(f"{b.url}/pool/v1/hello", json=rogue, timeout=10).status_code == 401
            assert wait_for_leader(group) == (leader, term)  # nobody believed it
            assert httpx.post(f"{b.url}/v1/chat/completions", json=ASK, timeout=10).status_code == 401
            reader, writer = ({"Authorization": f"Bearer {key}"} for key in ("reader-key-123", "writer-key-456"))
            job = {"kind": "inference", "body": ASK}
            assert httpx.post(f"{b.url}/api/jobs", json=job, headers=reader, timeout=10).status_code == 403
            assert httpx.post(f"{b.url}/api/jobs", json=job, headers=writer, timeout=10).status_code == 202
            for changes in ("/api/pull", "/api/nodes/wake/node-c"):  # they change a machine: a write key
                refused = httpx.post(f"{b.url}{changes}", json={"model": MODEL}, headers=reader, timeout=10)
                assert refused.status_code == 403 and "write-scoped" in refused.text
            assert httpx.get(f"{b.url}/metrics", timeout=10).status_code == 401
            assert "sentinel_pool_leading" in httpx.get(f"{b.url}/metrics", headers=reader, timeout=10).text
            not_allowed = b.signed("/pool/v1/run", run | {"job": "j3", "kind": "shell", "payload": {"argv": ["rm"]}})
            assert not_allowed.status_code == 403 and "allow-list" in not_allowed.text


def test_a_shell_job_on_a_node_that_dies_is_not_rerun(tmp_path: Path) -> None:
    specs = _specs([8_000, 4_000, 0], [[], [], []])
    with daemons(specs, tmp_path) as group:
        a, b, c = group
        assert wait_for_leader(group)[0] == "node-a"
        nodes = {node["node"]: node for node in a.get("/api/cluster").json()["nodes"]}
        assert nodes["node-c"]["vram_free_mb"] == 0  # --vram-free-mb 0 is a value, not "measure it"
        job = a.post("/api/jobs", {"kind": "shell", "node": "node-c", "argv": ["sleep", "30"]}).json()
        deadline = time.monotonic() + 20
        while a.get(f"/api/jobs/{job['job']}").json()["state"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        c.kill()
        lost = _poll(b.url, job["job"], 20)
        assert lost["state"] == "lost" and "never re-run" in str(lost["error"]) and lost["attempts"] == 1


def test_a_burst_through_a_follower_is_spread_over_two_identical_nodes(tmp_path: Path) -> None:
    with recorded_node(list("abcd"), MODEL, 0.1) as one, recorded_node(list("abcd"), MODEL, 0.1) as two:
        specs = _specs([16_000, 8_000, 8_000], [[], [f"openai={one}/v1"], [f"openai={two}/v1"]])
        with daemons(specs, tmp_path) as group:
            assert wait_for_leader(group)[0] == "node-a"

            async def burst() -> list[str]:
                async with httpx.AsyncClient(timeout=60) as client:

                    async def stream() -> str:
                        url = f"{group[2].url}/v1/chat/completions"
                        async with client.stream("POST", url, json=ASK | {"stream": True}) as answer:
                            assert answer.status_code == 200
                            assert "[DONE]" in "".join([text async for text in answer.aiter_text()])
                            return answer.headers["x-sentinel-node"]

                    return await asyncio.gather(*(stream() for _ in range(25)))

            shares = Counter(asyncio.run(burst()))
            assert set(shares) == {"node-b", "node-c"} and max(shares.values()) <= 15, shares
