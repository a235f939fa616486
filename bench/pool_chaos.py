"""The pool of daemons under chaos: what routing through it costs, how fast a dead leader is replaced, whether
started jobs survive leader kills, how a burst is spread, and how many requests per second it carries.

    python bench/pool_chaos.py [--kills 20] [--freezes 5] [--requests 200] [--seconds 5]

Three ``sentinel pool daemon`` processes on 127.0.0.1 (static peers, signed hellos; heartbeat and TTL at the
documented defaults, nothing passed): node-a (80 GB free, the leader), node-b (40 GB, the leader when node-a is
dead), node-c (no VRAM: never leads) with the model servers: an instant OpenAI-shaped one, a slow one (a job of
~1.5 s), and for the burst two identical streaming ones (node-c and node-b). Every model server is a real HTTP
server in this process.

- overhead: the same chat request direct to the model server, through the leader (leader -> node-c's daemon
  -> server) and through a follower (one hop more), alternately, sequentially;
- failover: ``kill -9`` of the leader to the first chat answered through node-c's address (a new leader serving);
  and the same for a leader frozen with SIGSTOP (a machine that vanishes: nothing refuses, the TTL decides),
  resumed with SIGCONT after the round;
- jobs: per kill, a slow inference job and a shell job (``mktemp``: each run leaves a file) are submitted
  through node-c, the leader is killed once both run, the client polls through node-c until terminal and
  acknowledges; the killed daemon is restarted before the next round. Duplicates: runs beyond the first, counted
  where the work happened (the slow model server's requests per job, the shell job's files);
- burst: 25 simultaneous streams through node-c to the two identical streaming servers: the share of each;
- req/s: 16 clients through node-c for ``--seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.pool.daemons import DaemonProcess, daemons, start_daemon, wait_for_leader, wait_up  # noqa: E402
from tests.pool.nodes import recorded_node  # noqa: E402
from tests.support.servers import free_port  # noqa: E402

FAST, SLOW, BURST = "fast-model", "slow-model", "burst-model"


def _ask(model: str, stream: bool = False) -> dict[str, object]:
    return {"model": model, "messages": [{"role": "user", "content": "hi"}], "stream": stream}


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def overhead(direct: str, leader: str, follower: str, requests: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"direct": [], "leader": [], "follower": []}
    with httpx.Client(timeout=30) as client:
        targets = {
            "direct": f"{direct}/v1/chat/completions",
            "leader": f"{leader}/v1/chat/completions",
            "follower": f"{follower}/v1/chat/completions",
        }
        for url in targets.values():  # warm the connections
            client.post(url, json=_ask(FAST)).raise_for_status()
        for _ in range(requests):
            for name, url in targets.items():
                began = time.perf_counter()
                client.post(url, json=_ask(FAST)).raise_for_status()
                times[name].append((time.perf_counter() - began) * 1000)
    return times


def serving_after_kill(leader: DaemonProcess, via: str) -> float:
    """Seconds from SIGKILL of the leader to a chat answered through ``via`` (a new leader serving)."""
    leader.kill()
    began = time.monotonic()
    while time.monotonic() - began < 60:
        try:
            if httpx.post(f"{via}/v1/chat/completions", json=_ask(FAST), timeout=2).status_code == 200:
                return time.monotonic() - began
        except httpx.TransportError:
            pass
        time.sleep(0.02)
    raise RuntimeError("no new leader served within 60 s")


def serving_after_freeze(leader: DaemonProcess, via: str) -> float:
    """Seconds from SIGSTOP of the leader to a chat answered through ``via``; the leader is resumed after."""
    leader.process.send_signal(signal.SIGSTOP)
    try:
        began = time.monotonic()
        while time.monotonic() - began < 60:
            try:
                if httpx.post(f"{via}/v1/chat/completions", json=_ask(FAST), timeout=2).status_code == 200:
                    return time.monotonic() - began
            except httpx.TransportError:
                pass
            time.sleep(0.02)
        raise RuntimeError("no new leader served within 60 s")
    finally:
        leader.process.send_signal(signal.SIGCONT)


def _started(via: str, job: str) -> None:
    deadline = time.monotonic() + 30
    while httpx.get(f"{via}/api/jobs/{job}", timeout=10).json()["state"] not in ("running", "done"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"job {job} never started: {httpx.get(f'{via}/api/jobs/{job}', timeout=10).text}")
        time.sleep(0.02)


def _finished(via: str, job: str) -> bool:
    """Poll through ``via`` until terminal (riding out the election), acknowledge: True when done."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            answer = httpx.get(f"{via}/api/jobs/{job}", timeout=10)
        except httpx.TransportError:
            answer = None
        if answer is not None and answer.status_code == 200 and answer.json()["state"] in ("done", "failed", "lost"):
            httpx.post(f"{via}/api/jobs/{job}/ack", json={}, timeout=10)
            return bool(answer.json()["state"] == "done")
        time.sleep(0.1)
    return False


def one_kill(group: list[DaemonProcess], specs: list[dict[str, object]], tmp: Path, number: int) -> tuple[int, float]:
    """A slow inference job and a shell job started, their leader killed, the client polling through node-c:
    (jobs finished of 2, failover seconds)."""
    leader_name, _ = wait_for_leader(group, timeout=60)
    leader = next(d for d in group if d.node == leader_name)
    via = group[2].url
    inference = {"kind": "inference", "body": _ask(SLOW) | {"messages": [{"role": "user", "content": f"job {number}"}]}}
    shell = {"kind": "shell", "node": "node-c", "argv": ["mktemp", f"{tmp}/runs/{number}.XXXXXX"]}
    jobs = [httpx.post(f"{via}/api/jobs", json=body, timeout=10).json()["job"] for body in (inference, shell)]
    for job in jobs:  # both assigned: a job still queued when its leader dies is lost by design (said at submit)
        _started(via, job)
    failover = serving_after_kill(leader, via)
    finished = sum(_finished(via, job) for job in jobs)
    index = group.index(leader)
    group[index] = start_daemon(specs[index], tmp)
    wait_up(group[index])
    return finished, failover


def one_freeze(group: list[DaemonProcess]) -> float:
    leader_name, _ = wait_for_leader(group, timeout=60)
    leader = next(d for d in group if d.node == leader_name)
    return serving_after_freeze(leader, group[2].url)


def burst(via: str, count: int = 25) -> Counter[str]:
    async def run() -> list[str]:
        async with httpx.AsyncClient(timeout=60) as client:

            async def one() -> str:
                async with client.stream("POST", f"{via}/v1/chat/completions", json=_ask(BURST, True)) as r:
                    async for _ in r.aiter_bytes():
                        pass
                    return r.headers.get("x-sentinel-node", "?")

            return await asyncio.gather(*(one() for _ in range(count)))

    return Counter(asyncio.run(run()))


def throughput(via: str, seconds: float, clients: int = 16) -> float:
    async def run() -> int:
        done = 0
        stop = time.monotonic() + seconds
        async with httpx.AsyncClient(timeout=30) as client:

            async def worker() -> None:
                nonlocal done
                while time.monotonic() < stop:
                    if (await client.post(f"{via}/v1/chat/completions", json=_ask(FAST))).status_code == 200:
                        done += 1

            await asyncio.gather(*(worker() for _ in range(clients)))
        return done

    return asyncio.run(run()) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--freezes", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    slow_received: list[dict[str, Any]] = []
    with (
        recorded_node(["ok"], FAST) as fast,
        recorded_node(["slow ", "job"], SLOW, piece_delay_s=0.75, received=slow_received) as slow,
        recorded_node(list("abcdefgh"), BURST, piece_delay_s=0.05) as burst_c,
        recorded_node(list("abcdefgh"), BURST, piece_delay_s=0.05) as burst_b,
        tempfile.TemporaryDirectory() as tmp,
    ):
        ports = [free_port() for _ in range(3)]
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        backends = [[], [f"openai={burst_b}/v1"], [f"openai={fast}/v1", f"openai={slow}/v1", f"openai={burst_c}/v1"]]
        specs: list[dict[str, object]] = [
            {
                "node": f"node-{n}",
                "host": "127.0.0.1",
                "port": ports[i],
                "vram": vram,
                "backends": backends[i],
                "peers": [u for u in urls if u != urls[i]],
                "allow": ["mktemp"],
                "default_timing": True,
            }
            for i, (n, vram) in enumerate(zip("abc", (80_000, 40_000, 0), strict=True))
        ]
        with daemons(specs, Path(tmp)) as group:
            wait_for_leader(group, timeout=60)
            times = overhead(fast, group[0].url, group[2].url, args.requests)
            shares = burst(group[2].url)
            rate = throughput(group[2].url, args.seconds)
            (Path(tmp) / "runs").mkdir()
            rounds = [one_kill(group, specs, Path(tmp), number) for number in range(args.kills)]
            freezes = [one_freeze(group) for _ in range(args.freezes)]
            shell_runs = Counter(path.name.split(".")[0] for path in (Path(tmp) / "runs").iterdir())
    asked = Counter(str(body["messages"][-1]["content"]) for body in slow_received)
    duplicates = sum(count - 1 for count in asked.values()) + sum(count - 1 for count in shell_runs.values())
    load_after = os.getloadavg()[0]
    direct = times["direct"]
    table = Table(title=f"pool chaos (load average {load_before:.1f} -> {load_after:.1f})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("goal", justify="right")
    for name in ("leader", "follower"):
        p50 = statistics.median(times[name]) - statistics.median(direct)
        p95 = _percentile(times[name], 0.95) - _percentile(direct, 0.95)
        table.add_row(
            f"overhead via {name} p50 / p95 (direct {statistics.median(direct):.2f} ms)",
            f"{p50:.2f} / {p95:.2f} ms",
            "<= 3 ms",
        )
    failovers = [seconds for _, seconds in rounds]
    if failovers:
        table.add_row(
            "leader kill -9 -> new leader serving, median / max",
            f"{statistics.median(failovers):.2f} / {max(failovers):.2f} s",
            "<= 2 s",
        )
        done = sum(finished for finished, _ in rounds)
        table.add_row(
            f"started jobs (inference + shell) completed across {len(rounds)} leader kills",
            f"{done}/{2 * len(rounds)}",
            "100%",
        )
        table.add_row("jobs run more than once (model requests, shell files)", str(duplicates), "0")
    if freezes:
        table.add_row(
            "leader SIGSTOP -> new leader serving, median / max",
            f"{statistics.median(freezes):.2f} / {max(freezes):.2f} s",
            "<= 2 s",
        )
    table.add_row(
        "burst of 25 streams over 2 identical nodes",
        ", ".join(f"{k} {v}" for k, v in sorted(shares.items())),
        "max <= 60%",
    )
    table.add_row("requests/s through a follower, 16 clients", f"{rate:.0f}", "-")
    Console().print(table)


if __name__ == "__main__":
    main()
