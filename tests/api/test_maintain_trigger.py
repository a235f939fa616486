"""POST /v1/maintain queues a pass on the real broker (Redis): accepted means queued, and says so."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import redis

from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.settings import Settings
from tests.support.servers import free_port

REDIS_URL = "redis://127.0.0.1:6379/0"


def test_trigger_queues_a_pass_on_the_broker_for_write_keys_only(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    _, write_key = create_key(keys_path(settings), Scope.WRITE)
    _, read_key = create_key(keys_path(settings), Scope.READ)
    prefix = f"sentinel-test-{uuid.uuid4().hex[:8]}:"
    port = free_port()
    env = {
        **os.environ,
        "SENTINEL_VAULT": str(vault),
        "SENTINEL_INDEX_PATH": str(tmp_path / "index.db"),
        "SENTINEL_REDIS_URL": REDIS_URL,
        "SENTINEL_REDIS_PREFIX": prefix,
        "SENTINEL_API_PORT": str(port),
        "SENTINEL_SYNC_INTERVAL_S": "0",
    }
    server = subprocess.Popen([sys.executable, "-m", "services.api"], env=env, cwd=Path(__file__).parents[2])
    client = redis.Redis.from_url(REDIS_URL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                httpx.get(f"{url}/health", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        refused = httpx.post(f"{url}/v1/maintain", headers={"Authorization": f"Bearer {read_key}"})
        assert refused.status_code == 403
        accepted = httpx.post(f"{url}/v1/maintain", headers={"Authorization": f"Bearer {write_key}"}, timeout=30)
        assert accepted.status_code == 202, accepted.text
        body = accepted.json()
        assert body["queued"] is True and body["task_id"]
        queued = [key for key in client.keys(f"{prefix}*") if client.type(key) == b"list"]
        assert queued and any(
            body["task_id"].encode() in message for key in queued for message in client.lrange(key, 0, -1)
        )
    finally:
        server.terminate()
        server.wait(10)
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)
