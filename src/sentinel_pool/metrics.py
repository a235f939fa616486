"""The router's Prometheus metrics, the same wherever it runs (the API's gateway, the daemon leader): requests,
latency, time to first token, failovers and tool-call answers, with bounded label sets. A label takes only values
the pool defines (its endpoints, the models its nodes serve, its nodes, a fixed set of outcomes), so no client can
grow the exposition with made-up model names (``metric_model``)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

OTHER = "other"
# Latency buckets from a cached embedding on a GPU to a long CPU prefill.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


def metric_model(model: str, outcome: str) -> str:
    """The ``model`` label of a finished request: the model itself when some node serves it (every outcome but
    ``unknown_model`` was routed to a candidate that does), else ``other``: the client's own word."""
    return OTHER if outcome == "unknown_model" else model


class RouterMetrics:
    """The router's ``Observer``. One registry per instance (tests build several)."""

    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        self.requests = Counter(
            "sentinel_pool_requests",
            "Inference requests the router finished, by its endpoint (OpenAI's; Ollama's are counted as theirs).",
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

    def failover(self, model: str, node: str, reason: str) -> None:
        self.failovers.labels(model, node).inc()  # a candidate's: a model and node of the pool

    def first_token(self, model: str, node: str, seconds: float) -> None:
        self.first_token_seconds.labels(model).observe(seconds)

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None:
        self.requests.labels("/v1" + endpoint, metric_model(model, outcome), node, outcome).inc()
        self.latency.labels("/v1" + endpoint, outcome).observe(seconds)

    def tool_calls(self, model: str, node: str, outcome: str) -> None:
        self.tool_answers.labels(model, outcome).inc()
