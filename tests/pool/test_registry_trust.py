"""Nothing on the gateway's path trusts a registry record it cannot authenticate: a record written into Redis by
hand (the "zz-rogue" node with 200 GB of VRAM that used to get the next prompt), or signed with another secret,
is never routed to nor listed; an agent sharing the gateway's pool secret is."""

from __future__ import annotations

from typing import Any

import httpx
from redis import Redis

from sentinel.settings import Settings
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish, signed
from services.api.app import create_app
from tests.pool.nodes import recorded_node
from tests.support.servers import serve

MODEL = "tiny"
ASK = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def _record(node: str, url: str, vram_mb: int = 8_000) -> NodeRecord:
    backend = BackendRecord(url=f"{url}/v1", kind="openai", models=[MODEL], loaded=[MODEL])
    return NodeRecord(node=node, vram_free_mb=vram_mb, backends=[backend])


def _write_by_hand(redis: Redis, keys: PoolKeys, record: NodeRecord) -> None:
    redis.set(keys.node(record.node), record.model_dump_json(), ex=60)
    redis.sadd(keys.nodes, record.node)


def test_a_hand_written_or_foreign_record_gets_no_prompt(
    pool_settings: Settings, redis_client: Redis, keys: PoolKeys
) -> None:
    rogue_got: list[dict[str, Any]] = []
    with recorded_node(["real"], MODEL) as real, recorded_node(["rogue"], MODEL, received=rogue_got) as rogue:
        with serve(create_app(pool_settings)) as gateway:  # no pool secret: believes only what this process wrote
            publish(redis_client, keys, _record("node-real", real), ttl_s=60)
            _write_by_hand(redis_client, keys, _record("zz-rogue", rogue, 200_000))
            _write_by_hand(redis_client, keys, signed(_record("aa-forged", rogue, 200_000), "not-the-pool-secret"))
            for _ in range(3):
                answer = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
                assert answer.status_code == 200 and answer.headers["x-sentinel-node"] == "node-real"
            listed = [
                n["node"] for n in httpx.get(f"{gateway}/api/cluster", timeout=10).json()["nodes"] if n["state"] == "up"
            ]
            assert listed == ["node-real"] and rogue_got == []

        redis_client.delete(keys.node("node-real"))
        pool_settings.pool.secret = "the-pool-secret-0123456789"
        with serve(create_app(pool_settings)) as gateway:  # with a secret: an agent that shares it is believed
            publish(redis_client, keys, _record("node-real", real), ttl_s=60, secret="the-pool-secret-0123456789")
            answer = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
            assert answer.status_code == 200 and answer.headers["x-sentinel-node"] == "node-real"
            publish(redis_client, keys, _record("node-real", real), ttl_s=60)  # an agent without the secret
            refused = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
            assert refused.status_code == 404 and rogue_got == []
