"""The node agent: probe this machine's backends and register them in Redis, every heartbeat, with a TTL.

It holds no state another process needs: if it dies, its record expires after ``ttl_s`` and the node is out of
the pool; when it comes back, the next heartbeat puts it back. Stopping it on purpose withdraws the record at
once. Without Redis (``redis=None``: the API routing over its own model servers in memory) it only probes, and
``latest`` is the record the API's router reads.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from redis import Redis
from redis.exceptions import RedisError

from sentinel.errors import BadInput
from sentinel.settings import Settings
from sentinel_pool.probe import BackendSpec, probe_backend
from sentinel_pool.registry import NodeRecord, PoolKeys, check_mac, check_node_name, publish, withdraw
from sentinel_pool.vram import probe_vram

log = logging.getLogger("sentinel.pool.agent")


class AgentSettingsInvalid(BadInput, ValueError):
    """The agent's settings cannot describe a node; the message says which one and how to fix it."""


class Agent:
    def __init__(self, settings: Settings, redis: Redis | None, keys: PoolKeys | None = None) -> None:
        pool = settings.pool
        try:
            self.node = check_node_name(pool.node or socket.gethostname().split(".")[0])
            self.mac = check_mac(pool.mac)
            self.backends = [BackendSpec.parse(text) for text in pool.backends]
        except ValueError as error:
            raise AgentSettingsInvalid(str(error)) from error
        if not self.backends:
            raise AgentSettingsInvalid(
                "the agent has no backend to register: give --backend kind=url (or SENTINEL_POOL__BACKENDS), e.g. "
                "ollama=http://localhost:11434"
            )
        if pool.ttl_s <= pool.heartbeat_s:
            raise AgentSettingsInvalid(
                f"ttl_s ({pool.ttl_s}) must exceed heartbeat_s ({pool.heartbeat_s}), or the node drops out of the "
                "pool between two heartbeats"
            )
        self.settings, self.redis = settings, redis
        self.keys = keys or PoolKeys.from_settings(settings)
        # A probe must finish well inside one heartbeat so the record never lapses while the agent is alive.
        self._http = httpx.Client(timeout=min(3.0, pool.heartbeat_s))
        self._last: list[tuple[str, list[str], list[str], str]] = []
        self.latest: NodeRecord | None = None

    def beat(self) -> NodeRecord:
        """Probe everything once and register the result (in Redis, where there is one)."""
        vram = probe_vram()
        free, total = vram.free_mb, vram.total_mb
        record = NodeRecord(
            node=self.node,
            mac=self.mac,
            vram_free_mb=free,
            vram_total_mb=total,
            backends=[probe_backend(self._http, spec) for spec in self.backends],
            agent=f"{socket.gethostname()}:{os.getpid()}",
        )
        if self.redis is not None:
            publish(self.redis, self.keys, record, self.settings.pool.ttl_s, self.settings.pool.secret)
        self.latest = record
        self._say_changes(record)
        return record

    def _say_changes(self, record: NodeRecord) -> None:
        """One log line when what the node offers changes (not one per heartbeat)."""
        now = [(b.url, b.models, b.loaded, b.problem) for b in record.backends]
        if now != self._last:
            self._last = now
            log.info("registered", extra={"node": record.node, "backends": [b.model_dump() for b in record.backends]})

    def run(self, stop: threading.Event) -> None:
        """Heartbeat until ``stop`` is set, then leave the pool. A Redis outage is logged and retried."""
        try:
            while not stop.is_set():
                try:
                    self.beat()
                except RedisError as error:  # Redis down or restarting: retry at the next beat
                    log.warning("heartbeat failed", extra={"node": self.node, "error": str(error)})
                stop.wait(self.settings.pool.heartbeat_s)
        finally:
            self._http.close()
            if self.redis is not None:
                try:
                    withdraw(self.redis, self.keys, self.node)
                except RedisError as error:
                    log.warning("could not withdraw; the record expires by itself", extra={"error": str(error)})


@contextmanager
def agent_thread(agent: Agent) -> Iterator[Agent]:
    """``agent`` registered now and heartbeating in a thread of this process until the block ends (then it
    leaves the pool): how the API serves a one-machine stack's model server with no agent process beside it."""
    try:
        agent.beat()
    except RedisError as error:  # not fatal: the heartbeat thread retries
        log.warning("first registration failed; retrying at the next heartbeat", extra={"error": str(error)})
    stop = threading.Event()
    thread = threading.Thread(target=agent.run, args=(stop,), daemon=True, name=f"pool-agent-{agent.node}")
    thread.start()
    try:
        yield agent
    finally:
        stop.set()
        thread.join(10)
