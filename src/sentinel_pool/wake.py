"""Wake-on-LAN on the daemon pool: by hand (``POST /api/nodes/wake/{node}``) and on demand (a request for a model
that only a sleeping node serves wakes it and waits a bounded time for it to come back).

Every daemon says in its hello how to wake it: its MAC and the broadcast address of its own network (computed
from the interface that holds its advertised address, or set), so the packet goes where that machine's network
card listens even when the leader is on another subnet with a directed-broadcast route. Every daemon remembers
every node it has heard (with the models it served), so whoever leads after an election can wake them too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import ifaddr
import wakeonlan

from sentinel_pool.cluster import WakeRefused
from sentinel_pool.errors import DaemonUnavailable
from sentinel_pool.routing import rank

if TYPE_CHECKING:
    from sentinel_pool.daemon import Daemon

log = logging.getLogger("sentinel.pool.wake")
POLL_S = 0.2
EVERY_NETWORK = "255.255.255.255"


def broadcast_of(host: str) -> str:
    """The broadcast address of the local network that holds ``host`` (an IPv4 address of this machine);
    255.255.255.255 when no interface has it (a host name, a NAT address)."""
    try:
        wanted = ipaddress.IPv4Address(host)
    except ValueError:
        return EVERY_NETWORK
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and ip.ip == str(wanted):
                network = ipaddress.IPv4Network(f"{ip.ip}/{ip.network_prefix}", strict=False)
                return str(network.broadcast_address if network.prefixlen < 31 else wanted)
    return EVERY_NETWORK


@dataclass
class Sleeper:
    """A node heard from at least once: how to wake it, and what it served when last awake."""

    mac: str
    address: str
    port: int
    models: set[str] = field(default_factory=set)
    last_seen: float = 0.0  # epoch seconds


class Waker:
    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.known: dict[str, Sleeper] = {}
        self._waking: dict[str, asyncio.Task[bool]] = {}
        self.sent = 0

    def heard(self, node: str, wake: dict[str, Any] | None, models: set[str]) -> None:
        if not wake or not wake.get("mac"):
            self.known.pop(node, None)
            return
        self.known[node] = Sleeper(str(wake["mac"]), str(wake["address"]), int(wake["port"]), models, time.time())

    def send(self, node: str) -> Sleeper:
        """The magic packet for ``node``, to its network's broadcast address."""
        sleeper = self.known.get(node)
        if sleeper is None:
            names = ", ".join(sorted(self.known)) or "none"
            raise WakeRefused(
                f"node {node!r} is not known with a MAC address (nodes that can be woken: {names}); start its daemon "
                "once with --mac aa:bb:cc:dd:ee:ff (SENTINEL_POOL__MAC)"
            )
        wakeonlan.send_magic_packet(sleeper.mac, ip_address=sleeper.address, port=sleeper.port)
        self.sent += 1
        log.info("wake sent", extra={"node": node, "mac": sleeper.mac, "address": f"{sleeper.address}:{sleeper.port}"})
        return sleeper

    async def on_demand(self, model: str) -> None:
        """When no live node serves ``model`` and a sleeping one did: wake it and wait (``wake_wait_s``) until it
        is back with the model. Returning: go on routing (it came back, or there was nothing to wake); else it
        raises a 503 (``DaemonUnavailable``, with ``Retry-After``)."""
        if not model or not self.known or self._serving(model):
            return
        live = self.daemon.live()
        asleep = sorted(n for n, s in self.known.items() if model in s.models and n not in live and n != self.me)
        if not asleep:
            return
        node = asleep[0]
        if node not in self._waking:  # one packet and one wait per node, however many requests are waiting on it
            self._waking[node] = asyncio.get_running_loop().create_task(self._wake_and_wait(node, model))
            self._waking[node].add_done_callback(lambda _: self._waking.pop(node, None))
        if await asyncio.shield(self._waking[node]):
            return
        wait = self.daemon.config.wake_wait_s
        raise DaemonUnavailable(
            f"{node} serves {model!r} and was woken, but did not come up within {wait:g} s (wake_wait_s)",
            code="node_asleep",
            nested=True,
            headers={"Retry-After": str(max(1, round(wait)))},
        )

    @property
    def me(self) -> str:
        return self.daemon.config.node

    def _serving(self, model: str) -> list[str]:
        return [candidate.node for candidate in rank(self.daemon.snapshot(), model)]

    async def _wake_and_wait(self, node: str, model: str) -> bool:
        try:
            self.send(node)
        except (WakeRefused, OSError) as error:
            log.warning("wake failed", extra={"node": node, "error": str(error)})
            return False
        deadline = time.monotonic() + self.daemon.config.wake_wait_s
        while time.monotonic() < deadline:
            if node in self._serving(model):
                return True
            await asyncio.sleep(POLL_S)
        return False
