"""Helpers of the daemon tests: each daemon a separate process (``sentinel pool daemon``), optionally inside a
network namespace of its own; a fake model server to put behind them; waiting for an elected leader."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from sentinel_pool.signing import HEADER, sign

SECRET = "test-pool-secret-0123456789abcdef"
_MAIN = "from sentinel.cli import main; main()"


@dataclass
class DaemonProcess:
    node: str
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """SIGKILL: the machine dies with no chance to say goodbye."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def get(self, path: str, timeout: float = 10) -> httpx.Response:
        return httpx.get(self.url + path, timeout=timeout)

    def post(self, path: str, body: Any, timeout: float = 10) -> httpx.Response:
        return httpx.post(self.url + path, json=body, timeout=timeout)

    def signed(self, path: str, body: dict[str, Any], secret: str = SECRET) -> httpx.Response:
        raw = httpx.Request("POST", "http://x", json=body).read()
        headers = {HEADER: sign(secret, "POST", path, raw), "content-type": "application/json"}
        return httpx.post(self.url + path, content=raw, headers=headers, timeout=10)

    def signed_get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, headers={HEADER: sign(SECRET, "GET", path, b"")}, timeout=10)


def start_daemon(spec: dict[str, Any], tmp: Path, *, netns: str | None = None, mdns: bool = False) -> DaemonProcess:
    """One daemon process for ``spec`` ({node, host, port, vram, gpu, backends, peers, allow, env, bare,
    default_timing}), not yet waited for. The heartbeat and TTL are pinned to 0.3 s / 1.2 s unless
    ``default_timing`` (then: the settings' defaults, as a user gets them). ``bare``: the documented default
    command, ``--node`` and ``--backend`` only (listen on 0.0.0.0:50053, mDNS on, the default heartbeat and TTL,
    VRAM measured); ``host`` is then where the test reaches it."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path), "SENTINEL_POOL__SECRET": SECRET} | spec.get("env", {})
    argv = [sys.executable, "-c", _MAIN, "pool", "daemon", "--node", spec["node"]]
    if spec.get("bare"):
        argv += [item for b in spec.get("backends", []) for item in ("--backend", b)]
        return _launch(argv, spec, tmp, netns, env)
    argv += ["--listen", f"{spec['host']}:{spec['port']}"]
    argv += [] if spec.get("default_timing") else ["--heartbeat", "0.3", "--ttl", "1.2"]
    argv += ["--vram-free-mb", str(spec.get("vram", 0))]
    argv += ["--gpu", spec["gpu"]] if spec.get("gpu") else []
    argv += [item for b in spec.get("backends", []) for item in ("--backend", b)]
    argv += [item for p in spec.get("peers", []) for item in ("--peer", p)]
    argv += [item for a in spec.get("allow", []) for item in ("--allow", a)]
    argv += ["--mdns" if mdns else "--no-mdns"]
    return _launch(argv, spec, tmp, netns, env)


def _launch(argv: list[str], spec: dict[str, Any], tmp: Path, netns: str | None, env: dict[str, str]) -> DaemonProcess:
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    log = tmp / f"{spec['node']}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    return DaemonProcess(spec["node"], f"http://{spec['host']}:{spec.get('port', 50053)}", process, log)


@contextmanager
def daemons(
    specs: list[dict[str, Any]], tmp: Path, *, netns: list[str] | None = None, mdns: bool = False
) -> Iterator[list[DaemonProcess]]:
    """Start one daemon process per spec, wait until each answers; stop them at the end (those still running)."""
    started: list[DaemonProcess] = []
    try:
        for index, spec in enumerate(specs):
            started.append(start_daemon(spec, tmp, netns=netns[index] if netns else None, mdns=mdns))
        for daemon in started:
            wait_up(daemon)
        yield started
    finally:
        stop(started)


def stop(group: list[DaemonProcess]) -> None:
    for daemon in group:
        if daemon.process.poll() is None:
            daemon.process.terminate()
            try:
                daemon.process.wait(10)
            except subprocess.TimeoutExpired:
                daemon.kill()


def wait_up(daemon: DaemonProcess, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if daemon.process.poll() is not None:
            raise AssertionError(f"daemon {daemon.node} exited: {daemon.log.read_text()[-2000:]}")
        try:
            if daemon.get("/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"daemon {daemon.node} did not answer within {timeout} s: {daemon.log.read_text()[-2000:]}")


def leaders(group: list[DaemonProcess]) -> dict[str, tuple[str | None, int]]:
    """Who each live daemon says leads, with the term."""
    out = {}
    for daemon in group:
        if daemon.process.poll() is None:
            said = daemon.get("/api/leader").json()
            out[daemon.node] = (said.get("leader"), said.get("term"))
    return out


def wait_for_leader(group: list[DaemonProcess], timeout: float = 30, settle_s: float = 1.0) -> tuple[str, int]:
    """Until every live daemon names the same leader, that leader leads, each hears all the others, and that has
    held for ``settle_s`` (a few hellos): a daemon that started late may agree to a worse leader for a moment
    before it challenges it, and that moment is not the election's outcome."""
    deadline = time.monotonic() + timeout
    seen: dict[str, tuple[str | None, int]] = {}
    agreed: tuple[str, int] | None = None
    since = 0.0
    while time.monotonic() < deadline:
        said = {d.node: d.get("/api/leader").json() for d in group if d.process.poll() is None}
        seen = {node: (answer.get("leader"), answer.get("term")) for node, answer in said.items()}
        claims = set(seen.values())
        hears_all = all(set(said) - {node} <= set(answer.get("peers_live", [])) for node, answer in said.items())
        leader, term = claims.pop() if len(claims) == 1 else (None, 0)
        if hears_all and leader is not None and leader in seen:
            if (leader, term) != agreed:
                agreed, since = (leader, term), time.monotonic()
            if time.monotonic() - since >= settle_s:
                return agreed
        else:
            agreed = None
        time.sleep(0.1)
    raise AssertionError(f"no agreed leader within {timeout} s: {seen}")
