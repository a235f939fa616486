"""Fault injection: the broker's Redis dies and comes back (empty) in the middle of a maintenance pass.

A private redis-server on its own port: the shared one on 6379 serves everyone else and is never touched.
After the restart: no half-written page, every row of the analysis table is whole, the index equals a rebuild,
and the next pass (beat's catch-up when the worker and beat start again) finishes the work."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import redis

from sentinel.index.consistency import differences
from sentinel.index.db import open_index
from sentinel.maintain.schedule import record_run
from sentinel.settings import ProviderSettings
from tests.support.http_stub import HttpStub
from tests.support.servers import free_port
from tests.support.worker_stack import NOTES, WorkerStack, pass_finished, slow_model


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    started: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
            stdout=subprocess.DEVNULL,
        )
        started.append(process)
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "the private redis-server did not start"
                time.sleep(0.1)
        return process

    start.port = port  # type: ignore[attr-defined]
    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
            process.wait(10)


@pytest.mark.timeout(400)
def test_a_redis_restart_mid_pass_loses_nothing_and_the_next_pass_finishes(
    worker_stack: Callable[..., WorkerStack], private_redis: Callable[[], subprocess.Popen[bytes]]
) -> None:
    server = private_redis()
    url = f"redis://127.0.0.1:{private_redis.port}/0"  # type: ignore[attr-defined]
    with HttpStub(slow_model) as model:
        extraction = ProviderSettings(kind="openai", base_url=f"{model.url}/v1", model="m")
        built = worker_stack(NOTES, extraction, SENTINEL_REDIS_URL=url, SENTINEL_MAINTAIN_AT="03:00")
        record_run(open_index(built.settings), datetime.now().astimezone() - timedelta(days=2))  # a missed night
        worker, beat = built.worker("w1"), built.beat()
        built.wait_for(lambda ev: any("[2/6]" in str(e.get("message")) for e in ev), 120, "two analysed pages")
        server.send_signal(signal.SIGKILL)
        server.wait()
        time.sleep(2)
        private_redis()  # back, and empty: the queued and running task records are gone
        db = open_index(built.settings)
        for row in db.execute("SELECT path, status, summary, reason FROM analysis"):
            assert (row["status"] == "ok" and row["summary"].strip()) or (row["status"] == "failed" and row["reason"])
        pages = list(built.settings.vault.rglob("*"))
        assert not [p for p in pages if p.is_file() and p.suffix != ".md"]  # no temp file of a half write
        # the next start of the worker and beat (a restart of the stack) finishes the work
        for process in (worker, beat):
            process.send_signal(signal.SIGTERM)
            process.wait(60)
        built.worker("w2")
        built.beat()
        deadline = time.monotonic() + 240
        while True:
            analysed = db.execute("SELECT COUNT(*) FROM analysis WHERE status = 'ok'").fetchone()[0]
            if analysed == len(NOTES):
                break
            assert time.monotonic() < deadline, f"only {analysed} of {len(NOTES)} pages analysed after the restart"
            time.sleep(1)
        built.wait_for(pass_finished("catch-up"), 120, "the catch-up pass after the restart")
    assert not differences(built.settings, db)
