"""Daemons as separate processes on loopback, under the faults a real fleet sees: a node frozen (SIGSTOP: a
laptop lid, a swapping machine, a debugger) while a shell job is assigned to it runs that job exactly once, never
also elsewhere; a finished result outlives the leader that collected it until the client has fetched it; a
request in flight when its leader freezes is fetched by its id, not run again; a stream cut by the leader's
death says the leader was lost, not the node."""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.pool.daemons import daemons, wait_for_leader
from tests.pool.nodes import recorded_node
from tests.support.servers import free_port


def _specs(names: list[str], vrams: list[int], backends: list[list[str]]) -> list[dict[str, object]]:
    ports = [free_port() for _ in names]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    return [
        {
            "node": name,
            "host": "127.0.0.1",
            "port": ports[i],
            "vram": vram,
            "backends": backends[i],
            "peers": [u for u in urls if u != urls[i]],
            "allow": ["mktemp"],
        }
        for i, (name, vram) in enumerate(zip(names, vrams, strict=True))
    ]


def _view(url: str, job: str) -> dict[str, object]:
    try:
        answer = httpx.get(f"{url}/api/jobs/{job}", timeout=5)
    except httpx.TransportError:
        return {}
    return answer.json() if answer.status_code == 200 else {}


def _until(url: str, job: str, states: tuple[str, ...], timeout: float) -> dict[str, object]:
    deadline, seen = time.monotonic() + timeout, {}
    while time.monotonic() < deadline:
        seen = _view(url, job)
        if seen.get("state") in states:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"job {job} never reached {states} within {timeout} s: {seen}")


def test_a_shell_job_assigned_to_a_frozen_node_runs_exactly_once(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    # node-a sorts first, so an unpinned shell job goes to it; node-b leads (most VRAM)
    specs = _specs(["node-a", "node-b", "node-c"], [2_000, 8_000, 4_000], [[], [], []])
    with daemons(specs, tmp_path) as group:
        frozen, _, via = group
        assert wait_for_leader(group)[0] == "node-b"
        frozen.process.send_signal(signal.SIGSTOP)
        try:
            job = via.post("/api/jobs", {"kind": "shell", "argv": ["mktemp", f"{runs}/ran.XXXXXX"]}).json()["job"]
            # the assignment got no answer: unknown, not "never reached", and so it goes nowhere else
            unknown = _until(via.url, job, ("unknown",), 10)
            assert unknown["node"] == "node-a" and "asking it before any re-run" in str(unknown["error"])
            time.sleep(3)  # node-a has left the pool (TTL 1.2 s): the old rule re-ran the job elsewhere by now
            still = _view(via.url, job)
            assert still["state"] == "unknown" and "not run elsewhere" in str(still["error"]), still
            assert list(runs.iterdir()) == []
        finally:
            frozen.process.send_signal(signal.SIGCONT)
        done = _until(via.url, job, ("done", "failed", "lost"), 20)
        assert done["state"] == "done" and done["attempts"] == 1, done
        time.sleep(2)  # a second run, had one been sent, would have landed by now
        ran = list(runs.iterdir())
        assert len(ran) == 1, ran
        assert done["result"]["stdout"].strip() == str(ran[0])  # type: ignore[index]
        assert via.post(f"/api/jobs/{job}/ack", {}).json() == {"acknowledged": True}


def test_a_finished_result_survives_the_leader_until_the_client_fetches_it(tmp_path: Path) -> None:
    with recorded_node(["kept"], "tiny") as backend:
        specs = _specs(["node-a", "node-b", "node-c"], [8_000, 4_000, 2_000], [[], [], [f"openai={backend}/v1"]])
        with daemons(specs, tmp_path) as group:
            leader, follower, producer = group
            assert wait_for_leader(group)[0] == "node-a"
            ask = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}
            submitted = follower.post("/api/jobs", {"kind": "inference", "body": ask}).json()
            assert submitted["result_kept_s"] == 3600 and "until you acknowledge it" in submitted["note"]
            job = submitted["job"]
            done = _until(follower.url, job, ("done",), 20)  # collected by the leader; the client has not acked
            assert done["node"] == "node-c"
            leader.kill()
            assert wait_for_leader([follower, producer])[0] == "node-b"
            again = _until(follower.url, job, ("done",), 20)  # the new leader learnt it from node-c's report
            assert again["result"]["choices"][0]["message"]["content"] == "kept"  # type: ignore[index]
            assert again["absorbed"] is True
            assert follower.post(f"/api/jobs/{job}/ack", {}).json() == {"acknowledged": True}
            assert httpx.get(f"{follower.url}/api/jobs/{job}", timeout=5).status_code == 404
            deadline = time.monotonic() + 10  # the acknowledgement reaches node-c: it forgets the result
            while producer.signed_get(f"/pool/v1/jobs/{job}/{again['epoch']}").status_code != 404:
                assert time.monotonic() < deadline, "node-c still holds an acknowledged result"
                time.sleep(0.1)


def test_a_request_in_flight_when_its_leader_freezes_is_fetched_not_rerun(tmp_path: Path) -> None:
    """The client's connection is on a follower; the leader freezes while the node works: the follower says
    'leader lost' with the request's id and no invitation to retry; the answer is fetched by that id once a new
    leader leads, and the model server saw the request once."""
    received: list[dict[str, object]] = []
    busy: dict[str, int] = {}
    with recorded_node(["slow ", "answer"], "tiny", piece_delay_s=1.0, received=received, busy=busy) as backend:
        specs = _specs(["node-a", "node-b", "node-c"], [80_000, 40_000, 0], [[], [], [f"openai={backend}/v1"]])
        with daemons(specs, tmp_path) as group:
            leader, entry, _ = group
            assert wait_for_leader(group)[0] == "node-a"
            ask = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}
            with ThreadPoolExecutor(1) as pool:
                pending = pool.submit(entry.post, "/v1/chat/completions", ask, 30)
                deadline = time.monotonic() + 10
                while busy["now"] == 0:  # the node is working on it
                    assert time.monotonic() < deadline and not pending.done(), pending
                    time.sleep(0.02)
                leader.process.send_signal(signal.SIGSTOP)
                try:
                    lost = pending.result(timeout=20)
                    assert lost.status_code == 503 and lost.headers["x-should-retry"] == "false", lost.text
                    assert "retry-after" not in lost.headers
                    error = lost.json()["error"]
                    assert error["code"] == "leader_lost" and "the leader node-a" in error["message"]
                    rid = error["request"]
                    assert lost.headers["x-sentinel-request"] == rid and error["resume"] == f"/api/requests/{rid}"
                    deadline, fetched = time.monotonic() + 20, None
                    while fetched is None or fetched.status_code != 200:
                        assert time.monotonic() < deadline, fetched.text if fetched is not None else None
                        time.sleep(0.1)
                        fetched = entry.get(f"/api/requests/{rid}")
                        assert fetched.status_code in (200, 202, 503), fetched.text
                    assert fetched.json()["choices"][0]["message"]["content"] == "slow answer"
                    assert len(received) == 1  # fetched, not run again
                    assert entry.get("/api/requests/not-a-request-id").status_code == 404
                finally:
                    leader.process.send_signal(signal.SIGCONT)


def test_a_stream_cut_by_its_leader_s_death_names_the_leader_not_the_node(tmp_path: Path) -> None:
    with recorded_node(list("abcdefgh"), "tiny", piece_delay_s=0.4) as backend:
        specs = _specs(["node-a", "node-b", "node-c"], [80_000, 40_000, 0], [[], [], [f"openai={backend}/v1"]])
        with daemons(specs, tmp_path) as group:
            leader, entry, _ = group
            assert wait_for_leader(group)[0] == "node-a"
            ask = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "stream": True}
            with httpx.stream("POST", f"{entry.url}/v1/chat/completions", json=ask, timeout=30) as answer:
                assert answer.status_code == 200
                chunks = answer.iter_text()
                text = next(chunks)
                leader.kill()
                text += "".join(chunks)
            assert '"code": "leader_lost"' in text.replace('":"', '": "') and "the leader node-a" in text, text
            assert "[DONE]" not in text
