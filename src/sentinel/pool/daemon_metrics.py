"""The daemon's Prometheus metrics (``GET /metrics``), with bounded label sets: a label takes only values the
pool itself defines (its endpoints, the models its nodes serve, its nodes, a fixed set of outcomes), so no client
can grow the exposition by sending new model names or paths. Anything else is counted under ``other``
(``metric_model``, the one rule, the gateway's metrics use it too)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from sentinel.pool.registry import Snapshot

OTHER = "other"
ENDPOINTS = ("/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/api/chat", "/api/generate", "/api/embed")
OUTCOMES = ("ok", "busy", "exhausted", "unknown_model")
# Latency buckets from a cached embedding on a GPU to a long CPU prefill (the gateway's metrics use them too).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


def metric_model(model: str, outcome: str) -> str:
    """The ``model`` label of a finished request: the model itself when some node serves it (every outcome but
    ``unknown_model`` was routed to a candidate that does), else ``other``: the client's own word."""
    return OTHER if outcome == "unknown_model" else model


class DaemonMetrics:
    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        self.requests = Counter(
            "sentinel_pool_requests",
            "Inference requests the leader finished.",
            ["endpoint", "model", "node", "outcome"],
            registry=r,
        )
        self.latency = Histogram(
            "sentinel_pool_request_seconds",
            "From request to answer started.",
            ["endpoint", "outcome"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.failovers = Counter(
            "sentinel_pool_failovers", "Hand-offs that failed before the answer.", ["model", "node"], registry=r
        )
        self.leading = Gauge("sentinel_pool_leading", "1 when this daemon leads the pool.", registry=r)
        self.term = Gauge("sentinel_pool_term", "The election term this daemon follows or leads.", registry=r)
        self.peers = Gauge(
            "sentinel_pool_daemons_live", "Daemons heard from within daemon_ttl_s, this one included.", registry=r
        )
        self.in_flight = Gauge(
            "sentinel_pool_node_in_flight", "Requests the leader has in flight per node.", ["node"], registry=r
        )
        self.vram = Gauge(
            "sentinel_pool_node_vram_free_bytes", "Free VRAM per node, as each measured it.", ["node"], registry=r
        )
        self.queued = Gauge("sentinel_pool_queued", "Requests waiting for a free node.", registry=r)
        self.rejected = Gauge("sentinel_pool_queue_rejected", "Requests answered 503 busy since start.", registry=r)
        self.sticky = Gauge(
            "sentinel_pool_sticky_hits", "Requests sent back to the node holding their conversation.", registry=r
        )
        self.wakes = Gauge("sentinel_pool_wakes_sent", "Wake-on-LAN packets sent since start.", registry=r)
        self.jobs = Gauge("sentinel_pool_jobs", "Jobs in the leader's table by state.", ["state"], registry=r)

    def endpoint(self, path: str) -> str:
        return path if path in ENDPOINTS else OTHER

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None:
        self.requests.labels(endpoint, metric_model(model, outcome), node, outcome).inc()
        self.latency.labels(endpoint, outcome).observe(seconds)

    def failover(self, model: str, node: str) -> None:
        self.failovers.labels(model, node).inc()  # a candidate's: a model and node of the pool

    def render(self, pool: Snapshot, state: dict[str, float], jobs: dict[str, int]) -> bytes:
        for gauge in (self.in_flight, self.vram, self.jobs):
            gauge.clear()
        for record in pool.nodes:
            self.in_flight.labels(record.node).set(pool.active_on(record.node))
            if record.vram_free_mb is not None:
                self.vram.labels(record.node).set(record.vram_free_mb * 1024 * 1024)
        for name, gauge in (
            ("leading", self.leading),
            ("term", self.term),
            ("peers", self.peers),
            ("queued", self.queued),
            ("rejected", self.rejected),
            ("sticky", self.sticky),
            ("wakes", self.wakes),
        ):
            gauge.set(state[name])
        for job_state, count in jobs.items():
            self.jobs.labels(job_state).set(count)
        return generate_latest(self.registry)
