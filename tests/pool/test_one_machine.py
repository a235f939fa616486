"""A one-machine stack: the API, given ``SENTINEL_POOL__BACKENDS``, probes its model server itself (no agent
process) and routes over it in its own memory, so chat needs no Redis (``registry: auto``); with ``registry:
redis`` it registers the server there instead, for other gateway processes, and withdraws it when it stops."""

from __future__ import annotations

import httpx
import pytest
from redis import Redis

from sentinel.settings import Settings
from sentinel_pool.registry import PoolKeys
from services.api.app import create_app
from tests.pool.nodes import recorded_node
from tests.support.servers import free_port, serve

MODEL = "one-machine"
ASK = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def _one_machine(settings: Settings, node_url: str, registry: str) -> Settings:
    pool = settings.pool.model_copy(
        update={"node": "this-machine", "backends": [f"openai={node_url}/v1"], "registry": registry}
    )
    return settings.model_copy(update={"pool": pool})


def test_an_api_with_its_own_backends_routes_over_them_without_redis(pool_settings: Settings) -> None:
    keys = PoolKeys.from_settings(pool_settings)
    with recorded_node(["hello"], MODEL) as node:
        settings = _one_machine(pool_settings, node, "auto")
        with serve(create_app(settings)) as api:
            nodes = httpx.get(f"{api}/api/cluster", timeout=10).json()["nodes"]
            assert [(n["node"], n["backends"][0]["models"]) for n in nodes] == [("this-machine", [MODEL])]
            answer = httpx.post(f"{api}/v1/chat/completions", json=ASK, timeout=30)
            assert answer.status_code == 200 and answer.headers["x-sentinel-node"] == "this-machine"
            assert Redis.from_url(settings.redis_url).get(keys.node("this-machine")) is None  # nothing there
        settings.redis_url = f"redis://127.0.0.1:{free_port()}/0"  # Redis down: nothing listens there
        with serve(create_app(settings), health="/openapi.json") as api:
            for body in (ASK, ASK | {"stream": True}):
                answer = httpx.post(f"{api}/v1/chat/completions", json=body, timeout=30)
                assert answer.status_code == 200 and "hello" in answer.text, answer.text
            health = httpx.get(f"{api}/health", timeout=30)
            assert health.status_code == 503 and health.json()["redis"].startswith("unreachable")  # Celery's


def test_with_registry_redis_it_registers_its_backends_there_and_withdraws_them(pool_settings: Settings) -> None:
    keys = PoolKeys.from_settings(pool_settings)
    with recorded_node(["hello"], MODEL) as node:
        settings = _one_machine(pool_settings, node, "redis")
        with serve(create_app(settings)) as api:
            assert Redis.from_url(settings.redis_url).get(keys.node("this-machine")) is not None
            answer = httpx.post(f"{api}/v1/chat/completions", json=ASK, timeout=30)
            assert answer.headers["x-sentinel-node"] == "this-machine"
        assert Redis.from_url(settings.redis_url).get(keys.node("this-machine")) is None  # withdrawn at stop


def test_a_memory_registry_without_backends_of_its_own_is_refused_with_the_fix(pool_settings: Settings) -> None:
    pool = pool_settings.pool.model_copy(update={"registry": "memory", "backends": []})
    with pytest.raises(ValueError, match="SENTINEL_POOL__BACKENDS"):
        create_app(pool_settings.model_copy(update={"pool": pool}))
