"""Daemons in network namespaces of their own, joined by a bridge: a real LAN segment, so mDNS and partitions
are real. No static peer is given: they find each other by multicast (python-zeroconf), elect the best hardware,
and a leader cut off from the others is replaced and, back on the network, follows its successor (a higher
term). Needs root (``ip netns``); skipped otherwise, with the reason. Every namespace and link it makes is
removed afterwards."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.pool.daemons import daemons, leaders, start_daemon, stop, wait_for_leader
from tests.pool.nodes import recorded_node

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="network namespaces (ip netns add) need root; run as root to test mDNS and partitions"
)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextmanager
def _segment(count: int) -> Iterator[tuple[list[str], list[str], Callable[[int, str], None], str]]:
    """``count`` namespaces on one bridge, itself in a namespace of its own (so the host's firewall, which a Docker
    engine sets to drop bridged traffic, plays no part), and a link from the host to it for the test's requests.
    Yields (namespaces, their addresses, ``link(i, "up"|"down")`` to cut or restore daemon ``i``'s cable, the
    host's own address on the segment, where the test's model servers listen)."""
    tag = uuid.uuid4().hex[:5]
    subnet = 100 + int(tag, 16) % 150
    switch, names = f"sentinel-{tag}-sw", [f"sentinel-{tag}-{i}" for i in range(count)]
    addresses = [f"10.231.{subnet}.{i + 2}" for i in range(count)]
    host_link = f"sh{tag}"
    try:
        _ip("netns", "add", switch)
        _ip("-n", switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", switch, "link", "set", "br0", "up")
        _ip("link", "add", host_link, "type", "veth", "peer", "name", "uplink", "netns", switch)
        _ip("-n", switch, "link", "set", "uplink", "master", "br0", "up")
        _ip("addr", "add", f"10.231.{subnet}.1/24", "dev", host_link)
        _ip("link", "set", host_link, "up")
        for i, (name, address) in enumerate(zip(names, addresses, strict=True)):
            _ip("netns", "add", name)
            _ip("-n", switch, "link", "add", f"port{i}", "type", "veth", "peer", "name", "eth0", "netns", name)
            _ip("-n", switch, "link", "set", f"port{i}", "master", "br0", "up")
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up", "multicast", "on")
            _ip("-n", name, "link", "set", "lo", "up")

        def link(index: int, state: str) -> None:
            _ip("-n", switch, "link", "set", f"port{index}", state)

        yield names, addresses, link, f"10.231.{subnet}.1"
    finally:
        for name in [*names, switch]:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        subprocess.run(["ip", "link", "del", host_link], capture_output=True)


def test_daemons_find_each_other_by_mdns_elect_and_survive_a_partitioned_leader(tmp_path: Path) -> None:
    with _segment(3) as (names, addresses, link, _):
        specs = [
            {"node": node, "host": address, "port": 50053, "vram": vram}
            for node, address, vram in zip(
                ["gpu-small", "gpu-big", "gpu-mid"], addresses, [8_000, 48_000, 24_000], strict=True
            )
        ]
        with daemons(specs, tmp_path, netns=names, mdns=True) as group:
            small, _, mid = group
            leader, term = wait_for_leader(group, timeout=60)
            assert leader == "gpu-big"
            assert sorted(small.get("/api/leader").json()["peers_live"]) == ["gpu-big", "gpu-mid"]
            link(1, "down")  # gpu-big is cut off: the others cannot hear it, nor it them
            new_leader, new_term = wait_for_leader([small, mid], timeout=30)
            assert new_leader == "gpu-mid" and new_term > term
            link(1, "up")  # it comes back, still believing it leads at the old term
            # it is better hardware, so it bullies back with a term above both: terms only grow, never reused
            final, final_term = wait_for_leader(group, timeout=30)
            assert final == "gpu-big" and final_term > new_term
            assert set(leaders(group).values()) == {("gpu-big", final_term)}


def test_the_documented_default_command_starts_elects_routes_and_survives_its_leader(tmp_path: Path) -> None:
    """``sentinel pool daemon --node N --backend openai=URL`` and the secret, nothing else: listen on 0.0.0.0,
    mDNS on every interface, the default heartbeat and TTL. Each daemon advertises its own segment address (not
    what its host name resolves to: loopback), so a chat through a follower reaches the node that serves it."""
    with _segment(3) as (names, addresses, _, host), recorded_node(["pong"], "tiny", host=host) as backend:
        specs = [
            {"node": f"gpu-{i + 1}", "host": address, "bare": True, "backends": [f"openai={backend}/v1"]}
            for i, address in enumerate(addresses)
        ]
        with daemons(specs, tmp_path, netns=names) as group:
            leader, term = wait_for_leader(group, timeout=60)
            assert leader == "gpu-1"  # no VRAM measured on any: the lowest name
            said = group[1].get("/api/leader").json()
            assert said["url"] == f"http://{addresses[0]}:50053", said  # the segment's address, never loopback
            ask = {"model": "tiny", "messages": [{"role": "user", "content": "ping"}]}
            for follower in group[1:]:
                chat = follower.post("/v1/chat/completions", ask, timeout=20)
                assert chat.status_code == 200 and chat.json()["choices"][0]["message"]["content"] == "pong"
            group[0].kill()
            new_leader, new_term = wait_for_leader(group[1:], timeout=30)
            assert new_leader == "gpu-2" and new_term > term
            for survivor in group[1:]:
                chat = survivor.post("/v1/chat/completions", ask, timeout=20)
                assert chat.status_code == 200 and chat.json()["choices"][0]["message"]["content"] == "pong"
        logs = " ".join(path.read_text() for path in tmp_path.glob("*.log"))
        assert "Traceback" not in logs and "no address but loopback" not in logs


def test_a_machine_with_only_loopback_starts_and_says_loudly_that_nobody_can_reach_it(tmp_path: Path) -> None:
    name = f"sentinel-{uuid.uuid4().hex[:5]}-lo"
    try:
        _ip("netns", "add", name)
        _ip("-n", name, "link", "set", "lo", "up")
        solo = start_daemon({"node": "solo", "host": "127.0.0.1", "bare": True}, tmp_path, netns=name)
        try:
            deadline = time.monotonic() + 60
            while "no address but loopback" not in solo.log.read_text():
                assert solo.process.poll() is None, solo.log.read_text()[-2000:]  # warned, not crashed
                assert time.monotonic() < deadline, solo.log.read_text()[-2000:]
                time.sleep(0.2)
            assert "--advertise" in solo.log.read_text() and solo.process.poll() is None
        finally:
            stop([solo])
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
