"""What the model pool's gateway costs: the same request sent to a backend directly and through the gateway.

    python bench/pool_overhead.py [--requests 400] [--concurrency 16] [--seconds 10] [--llama]

The backend is an OpenAI-shaped server that answers at once (a fixed completion, or 8 streamed chunks), so the
difference is the gateway alone: parsing, the Redis registry read, the epoch assignment and completion in the
job ledger, routing with its log line, the proxying and the API's request log. The gateway is the real API
service (``services.api.app``), the backend and the gateway each run in a process of their own, everything on
127.0.0.1, and the registry lives under a key prefix of its own in the local Redis (deleted at the end).
``--llama`` adds the real llama.cpp server with the small Qwen model (one token per request) for scale.
Prints a table: p50/p95 latency and requests/s, direct and through the gateway, and the overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from redis import Redis  # the type; clients come from sentinel.redis_client
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentinel.redis_client import redis_client  # noqa: E402
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish  # noqa: E402
from tests.support.servers import free_port  # noqa: E402

REDIS_URL = "redis://127.0.0.1:6379/0"
MODEL = "bench-model"
SECRET = "pool-bench-secret-0123456789"
ANSWER = {
    "object": "chat.completion",
    "model": MODEL,
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
}
CHUNKS = [
    b'data: {"choices":[{"index":0,"delta":{"content":"t%d"},"finish_reason":null}]}\n\n' % n for n in range(8)
] + [b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n', b"data: [DONE]\n\n"]


@dataclass
class Row:
    label: str
    direct: list[float]
    pooled: list[float]
    cpu_s: float | None = None
    rate_direct: float | None = None
    rate_pooled: float | None = None
    failed: int | None = None  # gateway requests of the requests/s run that did not answer 200


async def backend(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The instant OpenAI-shaped backend (an ASGI app run by ``--serve-backend``)."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    streamed = b'"stream": true' in body or b'"stream":true' in body
    kind = b"text/event-stream" if streamed else b"application/json"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]})
    if streamed:
        for chunk in CHUNKS:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    else:
        await send({"type": "http.response.body", "body": json.dumps(ANSWER).encode()})


def _wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{url}: the process exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer within {timeout} s")


@contextmanager
def _process(command: list[str], url: str, env: dict[str, str] | None = None) -> Iterator[int]:
    """Run ``command`` until the block ends; yields its pid once ``url`` answers."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        _wait_http(url, process)
        yield process.pid
    finally:
        process.terminate()
        process.wait(20)


async def _paired(
    direct_url: str, gateway_url: str, body: dict[str, Any], count: int
) -> tuple[list[float], list[float]]:
    """Sequential requests, alternating direct and through the gateway, so that both see the same machine load
    (others share these cores); per-request seconds after a warm-up."""
    direct, pooled = [], []
    async with httpx.AsyncClient(timeout=120) as client:
        for number in range(count + 10):
            for url, into in ((direct_url, direct), (gateway_url, pooled)):
                started = time.perf_counter()
                response = await client.post(url, json=body)
                await response.aread()
                if response.status_code != 200:
                    raise SystemExit(f"{url} answered {response.status_code}: {response.text[:200]}")
                if number >= 10:
                    into.append(time.perf_counter() - started)
    return direct, pooled


async def _throughput(url: str, body: dict[str, Any], concurrency: int, seconds: float) -> tuple[float, int]:
    """(successful requests per second, requests that failed) with ``concurrency`` clients for ``seconds``."""
    done, failed = 0, 0
    until = time.monotonic() + seconds

    async def one_client(client: httpx.AsyncClient) -> None:
        nonlocal done, failed
        while time.monotonic() < until:
            try:
                response = await client.post(url, json=body)
                await response.aread()
            except httpx.TransportError:
                failed += 1
                continue
            done += response.status_code == 200
            failed += response.status_code != 200

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        started = time.monotonic()
        await asyncio.gather(*(one_client(client) for _ in range(concurrency)))
        return done / (time.monotonic() - started), failed


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (from /proc), independent of how long it waited for a core."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _ms(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100)[int(share * 100) - 1] * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=400, help="sequential requests per row")
    parser.add_argument("--concurrency", type=int, default=16, help="clients for the requests/s column")
    parser.add_argument("--seconds", type=float, default=10, help="duration of each requests/s run")
    parser.add_argument("--llama", action="store_true", help="also measure against the real llama.cpp server")
    parser.add_argument("--serve-backend", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_backend:
        import uvicorn

        uvicorn.run(backend, host="127.0.0.1", port=args.serve_backend, log_level="error", access_log=False)
        return

    prefix = f"sentinel-bench-{uuid.uuid4().hex[:8]}:"
    keys, redis = PoolKeys(f"{prefix}pool:"), redis_client(REDIS_URL)
    backend_port, gateway_port = free_port(), free_port()
    backend_url, gateway_url = f"http://127.0.0.1:{backend_port}", f"http://127.0.0.1:{gateway_port}"
    rows: list[Row] = []
    try:
        with tempfile.TemporaryDirectory(prefix="pool-bench-") as vault:
            env = os.environ | {
                "SENTINEL_VAULT": vault,
                "SENTINEL_LOCAL_ONLY": "true",
                "SENTINEL_SYNC_INTERVAL_S": "0",
                "SENTINEL_REDIS_URL": REDIS_URL,
                "SENTINEL_REDIS_PREFIX": prefix,
                "SENTINEL_POOL__SECRET": SECRET,  # the registry record this bench writes is signed with it
            }
            app, where = "services.api.app:app", ["--host", "127.0.0.1", "--port", str(gateway_port)]
            quiet = ["--log-level", "warning", "--no-access-log"]
            uvicorn_gateway = [sys.executable, "-m", "uvicorn", app, *where, *quiet]
            with (
                _process([sys.executable, __file__, "--serve-backend", str(backend_port)], backend_url),
                _process(uvicorn_gateway, f"{gateway_url}/health", env) as gateway_pid,
            ):
                record = BackendRecord(url=f"{backend_url}/v1", kind="openai", models=[MODEL], loaded=[MODEL], slots=64)
                publish(redis, keys, NodeRecord(node="bench-node", backends=[record]), ttl_s=3600, secret=SECRET)
                direct_url, pooled_url = f"{backend_url}/v1/chat/completions", f"{gateway_url}/v1/chat/completions"
                ask = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
                for label, body in (("chat, JSON", ask), ("chat, SSE 8 chunks", ask | {"stream": True})):
                    cpu_before = _cpu_seconds(gateway_pid)
                    direct, pooled = asyncio.run(_paired(direct_url, pooled_url, body, args.requests))
                    cpu = (_cpu_seconds(gateway_pid) - cpu_before) / (args.requests + 10)
                    rate_direct, _ = asyncio.run(_throughput(direct_url, body, args.concurrency, args.seconds))
                    rate_pooled, failed = asyncio.run(_throughput(pooled_url, body, args.concurrency, args.seconds))
                    rows.append(Row(label, direct, pooled, cpu, rate_direct, rate_pooled, failed))
                if args.llama:
                    rows.append(_llama_row(redis, keys, gateway_url, max(20, args.requests // 20)))
    finally:
        stale = list(redis.scan_iter(match=f"{prefix}*"))
        if stale:
            redis.delete(*stale)
    _print(rows, args)


def _llama_row(redis: Redis, keys: PoolKeys, gateway_url: str, count: int) -> Row:
    from tests.support.llama import MODEL_ALIAS, llama_server

    with llama_server(ctx=1024, threads=1) as url:
        record = BackendRecord(url=url, kind="openai", models=[MODEL_ALIAS], loaded=[MODEL_ALIAS], slots=1)
        publish(redis, keys, NodeRecord(node="llama-node", backends=[record]), ttl_s=3600, secret=SECRET)
        body = {"model": MODEL_ALIAS, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
        pairs = _paired(f"{url}/chat/completions", f"{gateway_url}/v1/chat/completions", body, count)
        direct, pooled = asyncio.run(pairs)
    return Row("llama.cpp Qwen 0.5B, 1 token", direct, pooled)


def _print(rows: list[Row], args: argparse.Namespace) -> None:
    table = Table(
        title=f"pool gateway overhead: {args.requests} sequential requests, direct and through the gateway "
        f"alternately; requests/s with {args.concurrency} clients for {args.seconds:.0f} s; loopback, 2 shared cores"
    )
    columns = ("request", "direct p50", "direct p95", "gateway p50", "gateway p95", "overhead p50",
               "gateway CPU/req", "direct req/s", "gateway req/s", "gateway failed")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "request" else "right")
    for row in rows:
        overhead = statistics.median(p - d for p, d in zip(row.pooled, row.direct, strict=True)) * 1e3
        table.add_row(
            row.label,
            f"{_ms(row.direct, 0.5):.2f} ms",
            f"{_ms(row.direct, 0.95):.2f} ms",
            f"{_ms(row.pooled, 0.5):.2f} ms",
            f"{_ms(row.pooled, 0.95):.2f} ms",
            f"{overhead:.2f} ms",
            f"{row.cpu_s * 1e3:.2f} ms" if row.cpu_s is not None else "-",
            f"{row.rate_direct:.0f}" if row.rate_direct is not None else "-",
            f"{row.rate_pooled:.0f}" if row.rate_pooled is not None else "-",
            str(row.failed) if row.failed is not None else "-",
        )
    Console(width=200).print(table)
    Console().print(
        "overhead p50 is the median of (gateway - direct) over adjacent pairs; gateway CPU/req is the gateway "
        "process's user+system time per request, which does not count time spent waiting for a core"
    )


if __name__ == "__main__":
    main()
