"""The daemon's Prometheus metrics (``GET /metrics``): the router's (``metrics.RouterMetrics``: requests,
latency, failovers, tool-call answers) and the daemon's own state (leading, term, peers, queue, sticky hits,
wakes, jobs), with bounded label sets."""

from __future__ import annotations

from prometheus_client import Gauge, generate_latest

from sentinel_pool.metrics import RouterMetrics
from sentinel_pool.registry import Snapshot


class DaemonMetrics(RouterMetrics):
    def __init__(self) -> None:
        super().__init__()
        r = self.registry
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
