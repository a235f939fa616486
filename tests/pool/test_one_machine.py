"""A one-machine stack: the API, given ``SENTINEL_POOL__BACKENDS``, registers its model server itself (no agent
process), serves it through its gateway, and withdraws it when it stops."""

from __future__ import annotations

import httpx
from redis import Redis

from sentinel.pool.registry import PoolKeys
from sentinel.settings import Settings
from services.api.app import create_app
from tests.pool.nodes import recorded_node
from tests.support.servers import serve

MODEL = "one-machine"
ASK = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def test_an_api_with_pool_backends_set_registers_them_itself_and_serves_them(pool_settings: Settings) -> None:
    """A one-machine stack: no agent process, the API's own thread registers the model server."""
    with recorded_node(["hello"], MODEL) as node:
        pool = pool_settings.pool.model_copy(update={"node": "this-machine", "backends": [f"openai={node}/v1"]})
        with serve(create_app(pool_settings.model_copy(update={"pool": pool}))) as api:
            nodes = httpx.get(f"{api}/api/cluster", timeout=10).json()["nodes"]
            assert [(n["node"], n["backends"][0]["models"]) for n in nodes] == [("this-machine", [MODEL])]
            answer = httpx.post(f"{api}/v1/chat/completions", json=ASK, timeout=30)
            assert answer.headers["x-sentinel-node"] == "this-machine"
        keys = PoolKeys.from_settings(pool_settings)
        assert Redis.from_url(pool_settings.redis_url).get(keys.node("this-machine")) is None  # withdrawn at stop
