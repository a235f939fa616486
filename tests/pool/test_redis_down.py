"""Redis down, for real (nothing listens where the gateway's Redis should be): chat through the gateway is a 503
that names Redis and says when to retry, never a plain 500, and /health says the service is degraded."""

from __future__ import annotations

import httpx

from sentinel.settings import Settings
from services.api.app import create_app
from tests.support.servers import free_port, serve

ASK = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}


def test_redis_down_is_a_503_naming_it_and_health_says_degraded(pool_settings: Settings) -> None:
    pool_settings.redis_url = f"redis://127.0.0.1:{free_port()}/0"  # a port nothing listens on
    with serve(create_app(pool_settings), health="/openapi.json") as gateway:
        for body in (ASK, ASK | {"stream": True}):
            answer = httpx.post(f"{gateway}/v1/chat/completions", json=body, timeout=30)
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["code"] == "registry_unavailable"
            assert "Redis" in answer.json()["error"]["message"] and answer.headers["retry-after"] == "1"
        models = httpx.get(f"{gateway}/v1/models", timeout=30)
        assert models.status_code == 503 and "Redis" in models.json()["error"]["message"]
        health = httpx.get(f"{gateway}/health", timeout=30)
        assert health.status_code == 503 and health.json()["status"] == "degraded"
        assert health.json()["redis"].startswith("unreachable")
    pool_settings.redis_url = "redis://127.0.0.1:6379/0"
    with serve(create_app(pool_settings)) as gateway:
        health = httpx.get(f"{gateway}/health", timeout=30)
        assert health.status_code == 200 and (health.json()["status"], health.json()["redis"]) == ("ok", "ok")
