"""Prometheus metrics of the model pool (prometheus-client): requests, latency, failovers, per-node load.

Request counters and latencies are this gateway process's own (Prometheus sums the replicas). Per-node load is
read from the Redis registry at scrape time, so every replica reports the same pool-wide truth.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from sentinel.pool.daemon_metrics import LATENCY_BUCKETS, metric_model
from sentinel.pool.registry import Snapshot


class PoolMetrics:
    """The gateway's ``Observer`` and the ``/metrics`` text. One registry per app (tests build several)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "sentinel_pool_requests",
            "Requests the gateway finished.",
            ["endpoint", "model", "node", "outcome"],
            registry=r,
        )
        self.latency = Histogram(
            "sentinel_pool_request_seconds",
            "Time from request to last byte.",
            ["endpoint", "outcome"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.first_token_seconds = Histogram(
            "sentinel_pool_first_token_seconds",
            "Time to the first streamed token.",
            ["model"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.failovers = Counter(
            "sentinel_pool_failovers",
            "Attempts that failed before the first token and moved on.",
            ["model", "node"],
            registry=r,
        )
        self.tool_answers = Counter(
            "sentinel_pool_tool_answers",
            "Answers to requests offering tools, by outcome: native (the server's own call), constrained (a call "
            "sampled under the gateway's schema of the offered calls), repaired (a call written as text, made a "
            "real one), text, unknown_tool / invalid_arguments / several_calls (call-shaped, kept as text).",
            ["model", "outcome"],
            registry=r,
        )
        self.nodes_up = Gauge("sentinel_pool_nodes_up", "Nodes heartbeating now.", registry=r)
        self.jobs = Gauge("sentinel_pool_node_jobs_in_flight", "Pool jobs in flight per node.", ["node"], registry=r)
        self.vram = Gauge(
            "sentinel_pool_node_vram_free_bytes", "Free VRAM per node (nvidia-smi).", ["node"], registry=r
        )

    def failover(self, model: str, node: str, reason: str) -> None:
        self.failovers.labels(model, node).inc()

    def first_token(self, model: str, node: str, seconds: float) -> None:
        self.first_token_seconds.labels(model).observe(seconds)

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None:
        self.requests.labels(endpoint, metric_model(model, outcome), node, outcome).inc()
        self.latency.labels(endpoint, outcome).observe(seconds)

    def tool_calls(self, model: str, node: str, outcome: str) -> None:
        self.tool_answers.labels(model, outcome).inc()

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
