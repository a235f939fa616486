"""Load test of the tool API: 50 concurrent clients searching while writes happen.

    python bench/api_load.py [--clients 50] [--seconds 20] [--vault DIR]

Starts the real API on a loopback port over a copy of the eval vault (lexical search unless
SENTINEL_EMBEDDER_URL / SENTINEL_EMBED_MODEL_DIR is set), and prints a table: requests, errors, p50/p99 latency
for searches and writes. Bounded in time and count; talks to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentinel.keys import Scope, create_key  # noqa: E402
from sentinel.paths import keys_path  # noqa: E402
from sentinel.settings import Settings  # noqa: E402
from services.api.app import create_app  # noqa: E402
from tests.support.eval_data import eval_vault_path  # noqa: E402
from tests.support.servers import serve  # noqa: E402

QUERIES = [
    "sync settings",
    "how do I embed a file",
    "eklentiler",
    "Vorlagen einfügen",
    "atajos de teclado",
    "publish custom domain",
    "graph view filters",
    "canvas cards",
    "properties types",
    "daily notes",
]


async def _client(url: str, key: str, until: float, latencies: list[float], errors: list[str], i: int) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(timeout=30) as client:
        n = 0
        while time.monotonic() < until:
            query = QUERIES[(i + n) % len(QUERIES)]
            started = time.perf_counter()
            response = await client.post(f"{url}/v1/tools/search", json={"query": query}, headers=headers)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200 or not response.json()["text"].startswith("["):
                errors.append(f"{response.status_code} {response.text[:80]}")
            n += 1


async def _writer(url: str, key: str, until: float, latencies: list[float], errors: list[str]) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(timeout=30) as client:
        n = 0
        while time.monotonic() < until:
            started = time.perf_counter()
            body = {"path": "notes/Load test.md", "content": f"line {n} about sync and publish", "mode": "append"}
            if n == 0:
                body["mode"] = "create"
            response = await client.post(f"{url}/v1/tools/write", json=body, headers=headers)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200 or not response.json()["text"].startswith("[OK]"):
                errors.append(f"{response.status_code} {response.text[:80]}")
            n += 1
            await asyncio.sleep(0.1)


def _row(table: Table, what: str, latencies: list[float], errors: list[str], seconds: float) -> None:
    ms = sorted(x * 1000 for x in latencies)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))] if ms else 0.0
    table.add_row(
        what,
        str(len(ms)),
        str(len(errors)),
        f"{len(ms) / seconds:.0f}",
        f"{statistics.median(ms):.1f}" if ms else "-",
        f"{p99:.1f}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--vault", type=Path, default=eval_vault_path())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(args.vault, vault)
        settings = Settings(vault=vault, index_path=Path(tmp) / "index.db", sync_interval_s=2)
        _, key = create_key(keys_path(settings), Scope.WRITE)
        app = create_app(settings)
        logging.getLogger().setLevel(logging.WARNING)  # one JSON line per request would drown the table
        with serve(app) as url:
            search_lat: list[float] = []
            write_lat: list[float] = []
            search_err: list[str] = []
            write_err: list[str] = []
            until = time.monotonic() + args.seconds

            async def run() -> None:
                await asyncio.gather(
                    *(_client(url, key, until, search_lat, search_err, i) for i in range(args.clients)),
                    _writer(url, key, until, write_lat, write_err),
                )

            asyncio.run(run())
    table = Table(
        "request",
        "count",
        "errors",
        "per s",
        "p50 ms",
        "p99 ms",
        title=f"tool API under load: {args.clients} clients searching + 1 writer, {args.seconds:.0f} s",
    )
    _row(table, "search", search_lat, search_err, args.seconds)
    _row(table, "write (append)", write_lat, write_err, args.seconds)
    Console().print(table)
    for error in (search_err + write_err)[:5]:
        print("error:", error)


if __name__ == "__main__":
    main()
