"""Prometheus metrics of the model pool (prometheus-client): requests, latency, failovers, per-node load.

Request counters and latencies are this gateway process's own (Prometheus sums the replicas). Per-node load is
read from the Redis registry at scrape time, so every replica reports the same pool-wide truth.
"""

from __future__ import annotations

from prometheus_client import Gauge, generate_latest

from sentinel_pool.metrics import RouterMetrics
from sentinel_pool.registry import Snapshot


class PoolMetrics(RouterMetrics):
    """The gateway's ``Observer`` and the ``/metrics`` text, with the pool-wide gauges read from Redis."""

    def __init__(self) -> None:
        super().__init__()
        r = self.registry
        self.nodes_up = Gauge("sentinel_pool_nodes_up", "Nodes heartbeating now.", registry=r)
        self.jobs = Gauge("sentinel_pool_node_jobs_in_flight", "Pool jobs in flight per node.", ["node"], registry=r)
        self.vram = Gauge(
            "sentinel_pool_node_vram_free_bytes", "Free VRAM per node (nvidia-smi).", ["node"], registry=r
        )

    def render(self, pool: Snapshot) -> bytes:
        """The exposition text, with the per-node gauges set from ``pool`` (nodes that left are dropped)."""
        for gauge in (self.jobs, self.vram):
            gauge.clear()
        self.nodes_up.set(len(pool.nodes))
        for record in pool.nodes:
            self.jobs.labels(record.node).set(pool.active_on(record.node))
            if record.vram_free_mb is not None:
                self.vram.labels(record.node).set(record.vram_free_mb * 1024 * 1024)
        return generate_latest(self.registry)
