"""The daemon's settings checked and completed: a bad one is refused at start with what to set instead."""

from __future__ import annotations

import ipaddress
import shutil
import socket
import subprocess
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from sentinel.errors import BadInput
from sentinel.keys import LiveKeyRing
from sentinel.settings import PoolSettings
from sentinel_pool.addresses import reach
from sentinel_pool.probe import BackendSpec
from sentinel_pool.registry import check_mac, check_node_name
from sentinel_pool.vram import probe_vram
from sentinel_pool.wake import broadcast_of


@dataclass
class DaemonConfig:
    """What a daemon runs with (``daemon_config`` makes it from the pool settings, checked)."""

    node: str
    host: str
    port: int
    advertise: str  # the URL other daemons and clients reach this one at
    secret: str
    backends: list[BackendSpec]
    peers: list[str] = field(default_factory=list)
    mdns: bool = True
    mdns_interfaces: list[str] = field(default_factory=list)  # IPv4 addresses mDNS binds to (empty: ``host``)
    announce: str = ""  # the IPv4 address mDNS announces (empty: ``host``)
    loopback_only: bool = False  # listening everywhere, yet this machine has no address but loopback
    vram_free_mb: int | None = None
    gpu: str = ""
    allow: list[str] = field(default_factory=list)
    heartbeat_s: float = 0.3  # PoolSettings' defaults
    ttl_s: float = 1.2
    keys: LiveKeyRing | None = None  # the API's keys; None: clients are not asked for one (a warning at start)
    # the router's knobs (attempts, timeouts, breaker, capacity, queue, sticky slack), as for the API's gateway
    routing: PoolSettings = field(default_factory=PoolSettings)
    mac: str = ""  # this machine's, for wake-on-LAN; empty: it cannot be woken
    wake_address: str = "255.255.255.255"  # the broadcast address of this machine's network
    wake_port: int = 9
    wake_wait_s: float = 60.0  # how long a request for a sleeping node's model waits for it to come up


class DaemonSettingsInvalid(BadInput, ValueError):
    """The daemon cannot start with these settings; the message names the fix."""


def _gpu_name() -> str:
    executable = shutil.which("nvidia-smi")
    if executable is None:
        return ""
    try:
        done = subprocess.run(
            [executable, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.splitlines()[0].strip() if done.returncode == 0 and done.stdout.strip() else ""


def _ipv4(host: str | None) -> str | None:
    try:
        return str(ipaddress.IPv4Address(host or ""))
    except ValueError:
        return None


def daemon_config(pool: PoolSettings, keys: LiveKeyRing | None = None) -> DaemonConfig:
    if len(pool.secret) < 16:
        raise DaemonSettingsInvalid(
            "the pool secret is missing or shorter than 16 characters: set SENTINEL_POOL__SECRET (or --secret) to "
            "the same long random string on every machine, e.g. the output of `openssl rand -hex 32`"
        )
    host, sep, port_text = pool.listen.rpartition(":")
    if not sep or not port_text.isdigit():
        raise DaemonSettingsInvalid(f"listen {pool.listen!r} is not host:port, e.g. 0.0.0.0:50053")
    if pool.daemon_ttl_s <= pool.daemon_heartbeat_s:
        raise DaemonSettingsInvalid("daemon_ttl_s must exceed daemon_heartbeat_s, or peers drop out between hellos")
    try:
        node = check_node_name(pool.node or socket.gethostname().split(".")[0])
        backends = [BackendSpec.parse(text) for text in pool.backends]
        mac = check_mac(pool.mac)
    except ValueError as error:
        raise DaemonSettingsInvalid(str(error)) from error
    port = int(port_text)
    where = reach(host, pool.peers)
    advertise = pool.advertise or f"http://{where.advertise}:{port}"
    measured = probe_vram()
    vram = pool.vram_free_mb if pool.vram_free_mb is not None else measured.free_mb
    # a GPU without nvidia-smi still counts as one in the election: named by where its memory was read
    gpu = pool.gpu or _gpu_name() or ("" if measured.source == "unknown" else measured.source)
    return DaemonConfig(
        node=node,
        host=host or "0.0.0.0",
        port=port,
        advertise=advertise.rstrip("/"),
        secret=pool.secret,
        backends=backends,
        peers=[peer.rstrip("/") for peer in pool.peers],
        mdns=pool.mdns,
        mdns_interfaces=where.interfaces,
        announce=_ipv4(urlsplit(advertise).hostname) or where.advertise,
        loopback_only=where.loopback_only and not pool.advertise,
        vram_free_mb=vram,
        gpu=gpu,
        allow=pool.allow,
        heartbeat_s=pool.daemon_heartbeat_s,
        ttl_s=pool.daemon_ttl_s,
        keys=keys,
        routing=pool,
        mac=mac,
        wake_address=pool.wake_address or broadcast_of(urlsplit(advertise).hostname or ""),
        wake_port=pool.wake_port,
        wake_wait_s=pool.wake_wait_s,
    )
