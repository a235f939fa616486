"""Routing that holds under load, in the real API app over real Redis, with real HTTP servers as nodes: a burst
is spread as it arrives, a failing node is cooled down and probed back, a hung node costs one bounded wait, and
neither the pool's failover nor the OpenAI SDK's own retries multiply dispatches past three."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import openai
import pytest
from redis import Redis

from sentinel.settings import Settings
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish
from services.api.app import create_app
from tests.pool.nodes import completion, recorded_node
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.servers import hung_server, serve

MODEL = "tiny"
ASK = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def _register(redis: Redis, keys: PoolKeys, node: str, url: str) -> None:
    backend = BackendRecord(url=url, kind="openai", models=[MODEL], loaded=[MODEL])
    publish(redis, keys, NodeRecord(node=node, backends=[backend]), ttl_s=60)


class _Switchable:
    """An OpenAI-shaped node answering ``status`` (changeable while it runs), counting its chat requests."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.stub = HttpStub(self._respond)

    def _respond(self, request: RecordedRequest) -> tuple[int, Any]:
        if self.status != 200:
            return self.status, {"error": {"message": "broken node"}}
        return 200, completion("fine")

    @property
    def chats(self) -> int:
        return sum(request.path == "/v1/chat/completions" for request in self.stub.requests)


@contextmanager
def _nodes(*statuses: int) -> Iterator[list[_Switchable]]:
    nodes = [_Switchable(status) for status in statuses]
    for node in nodes:
        node.stub.__enter__()
    try:
        yield nodes
    finally:
        for node in nodes:
            node.stub.__exit__(None, None, None)


def test_a_burst_of_25_streams_is_spread_over_two_identical_nodes(
    gateway: str, redis_client: Redis, keys: PoolKeys
) -> None:
    with recorded_node(["a", "b", "c"], MODEL, 0.05) as one, recorded_node(["a", "b", "c"], MODEL, 0.05) as two:
        _register(redis_client, keys, "node-a", f"{one}/v1")
        _register(redis_client, keys, "node-b", f"{two}/v1")

        async def burst() -> list[str]:
            async with httpx.AsyncClient(timeout=60) as client:

                async def one_stream() -> str:
                    url, body = f"{gateway}/v1/chat/completions", ASK | {"stream": True}
                    async with client.stream("POST", url, json=body) as r:
                        body = "".join([text async for text in r.aiter_text()])
                        assert r.status_code == 200, body  # the answer says why (a bare 500 once flaked in CI)
                        assert "[DONE]" in body
                        return r.headers["x-sentinel-node"]

                return await asyncio.gather(*(one_stream() for _ in range(25)))

        shares = Counter(asyncio.run(burst()))
        assert sum(shares.values()) == 25 and set(shares) == {"node-a", "node-b"}
        assert max(shares.values()) <= 15, shares  # no node above 60%


def test_the_openai_sdks_own_retries_never_multiply_dispatches(
    gateway: str, redis_client: Redis, keys: PoolKeys
) -> None:
    with _nodes(500, 500, 500) as nodes:
        for name, node in zip("abc", nodes, strict=True):
            _register(redis_client, keys, f"node-{name}", f"{node.stub.url}/v1")
        client = openai.OpenAI(base_url=f"{gateway}/v1", api_key="none", timeout=30)  # max_retries=2: its default
        with pytest.raises(openai.InternalServerError) as raised:
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}])
        assert raised.value.response.headers["x-should-retry"] == "false"
        assert int(raised.value.response.headers["retry-after"]) >= 1
        assert sum(node.chats for node in nodes) == 3  # the pool's three attempts, and the SDK did not add any
        # a request that must not run twice reaches one node, whatever the SDK would do
        once = openai.OpenAI(
            base_url=f"{gateway}/v1", api_key="none", default_headers={"x-sentinel-idempotent": "false"}
        )
        before = sum(node.chats for node in nodes)
        with pytest.raises(openai.InternalServerError, match="never re-run"):
            once.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}])
        assert sum(node.chats for node in nodes) - before == 1


def test_an_idempotency_key_caps_a_clients_retries_at_three_dispatches(
    pool_settings: Settings, redis_client: Redis, keys: PoolKeys
) -> None:
    pool_settings.pool.breaker_failures = 10  # keep the breaker out of it: the key alone caps the dispatches
    with _nodes(500, 500) as nodes, serve(create_app(pool_settings)) as gateway:
        for name, node in zip("ab", nodes, strict=True):
            _register(redis_client, keys, f"node-{name}", f"{node.stub.url}/v1")
        key = {"Idempotency-Key": "retry-me-7"}
        answers = [
            httpx.post(f"{gateway}/v1/chat/completions", json=ASK, headers=key, timeout=30) for _ in range(4)
        ]  # a client that ignores x-should-retry and retries three times
        assert [a.status_code for a in answers] == [503] * 4
        assert sum(node.chats for node in nodes) == 3
        assert "all 3 attempts are spent" in answers[-1].json()["error"]["message"]
        # another key is another job
        fresh = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, headers={"Idempotency-Key": "x"}, timeout=30)
        assert fresh.status_code == 503 and sum(node.chats for node in nodes) == 5


def test_a_failing_node_is_cooled_down_then_probed_back(
    pool_settings: Settings, redis_client: Redis, keys: PoolKeys
) -> None:
    pool_settings.pool.breaker_failures, pool_settings.pool.breaker_cooldown_s = 2, 4.0
    with _nodes(500, 200) as (failing, healthy), serve(create_app(pool_settings)) as gateway:
        _register(redis_client, keys, "node-a", f"{failing.stub.url}/v1")  # first by name on equal scores
        _register(redis_client, keys, "node-b", f"{healthy.stub.url}/v1")
        # six conversations (one would stick to node-b, where it was answered, and never try node-a again)
        for n in range(6):
            ask = ASK | {"messages": [{"role": "user", "content": f"question {n}"}]}
            answer = httpx.post(f"{gateway}/v1/chat/completions", json=ask, timeout=30)
            assert answer.status_code == 200 and answer.headers["x-sentinel-node"] == "node-b"
        assert failing.chats == 2  # two failures opened its breaker: the next four never tried it
        time.sleep(4.2)
        failing.status = 200  # it recovered; the probe after the cooldown finds out
        probe = httpx.post(
            f"{gateway}/v1/chat/completions", json=ASK | {"messages": [{"role": "user", "content": "?"}]}, timeout=30
        )
        assert probe.headers["x-sentinel-node"] == "node-a" and failing.chats == 3


def test_a_hung_node_costs_one_bounded_wait_and_every_node_hung_is_a_bounded_503(
    pool_settings: Settings, redis_client: Redis, keys: PoolKeys
) -> None:
    pool_settings.pool.first_token_timeout_s, pool_settings.pool.request_timeout_s = 1.0, 2.5
    pool_settings.pool.breaker_failures = 1
    with hung_server() as (hung, connections), _nodes(200) as (healthy,), serve(create_app(pool_settings)) as gateway:
        _register(redis_client, keys, "node-a", hung)
        _register(redis_client, keys, "node-b", f"{healthy.stub.url}/v1")
        first = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
        assert first.status_code == 200 and first.headers["x-sentinel-node"] == "node-b"
        assert len(connections) == 1
        again = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
        assert again.headers["x-sentinel-node"] == "node-b" and len(connections) == 1  # cooled down: not retried
    redis_client.delete(keys.node("node-a"), keys.node("node-b"))
    with hung_server() as (a, _), hung_server() as (b, _), hung_server() as (c, _):
        for name, url in zip("cde", (a, b, c), strict=True):
            _register(redis_client, keys, f"node-{name}", url)
        # a first-token wait close to the request's own bound: one wait per hung node (6 s) and the bound (2.5 s)
        # stay seconds apart, so a loaded machine's slowness cannot pass for the difference (3.03 s once did)
        pool_settings.pool.first_token_timeout_s = 2.0
        with serve(create_app(pool_settings)) as gateway:
            began = time.monotonic()
            answer = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30)
            waited = time.monotonic() - began
        assert answer.status_code == 503 and "request_timeout_s" in answer.json()["error"]["message"]
        assert waited < 3 * pool_settings.pool.first_token_timeout_s  # not one full wait per hung node


def test_a_conversations_next_turn_goes_back_to_the_node_holding_its_prompt_cache(
    gateway: str, redis_client: Redis, keys: PoolKeys
) -> None:
    with recorded_node(list("abcdefgh"), MODEL, 0.15) as one, recorded_node(list("abcdefgh"), MODEL, 0.15) as two:
        _register(redis_client, keys, "node-a", f"{one}/v1")
        _register(redis_client, keys, "node-b", f"{two}/v1")

        def turn(system: str, turns: int) -> dict[str, Any]:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": "first"}]
            for n in range(1, turns):
                messages += [{"role": "assistant", "content": f"answer {n}"}, {"role": "user", "content": f"next {n}"}]
            return {"model": MODEL, "messages": messages, "stream": True}

        async def scenario() -> list[str]:
            async with httpx.AsyncClient(timeout=60) as client:

                async def stream(body: dict[str, Any]) -> str:
                    async with client.stream("POST", f"{gateway}/v1/chat/completions", json=body) as r:
                        text = "".join([piece async for piece in r.aiter_text()])
                        assert r.status_code == 200 and "[DONE]" in text, text
                        return r.headers["x-sentinel-node"]

                other = asyncio.create_task(stream(turn("conversation A", 1)))  # node-a: equal nodes, first by name
                await asyncio.sleep(0.3)
                placed = [await stream(turn("conversation C", 1))]  # node-a is busy: node-b
                placed.append(await other)
                # both idle, node-a first on every score: each conversation's next turn goes where its cache is
                placed.append(await stream(turn("conversation C", 2)))
                placed.append(await stream(turn("conversation A", 2)))
                return placed

        assert asyncio.run(scenario()) == ["node-b", "node-a", "node-b", "node-a"]


def test_when_every_node_is_full_the_gateway_queues_and_past_the_queue_answers_503_busy(
    pool_settings: Settings, redis_client: Redis, keys: PoolKeys
) -> None:
    pool_settings.pool.node_max_jobs, pool_settings.pool.queue_max = 1, 2  # its backend says no slot count
    busy: dict[str, int] = {}
    with recorded_node(list("abcdef"), MODEL, 0.1, busy=busy) as one, serve(create_app(pool_settings)) as gateway:
        _register(redis_client, keys, "node-a", f"{one}/v1")

        async def burst() -> list[httpx.Response]:
            async with httpx.AsyncClient(timeout=60) as client:

                async def one_stream(n: int) -> httpx.Response:
                    await asyncio.sleep(0.05 * n)  # spread out, but a slow runner may still deliver them together
                    ask = ASK | {"stream": True, "messages": [{"role": "user", "content": f"q{n}"}]}
                    async with client.stream("POST", f"{gateway}/v1/chat/completions", json=ask) as r:
                        await r.aread()
                        return r

                return list(await asyncio.gather(*(one_stream(n) for n in range(5))))

        answers = asyncio.run(burst())
        # which of the five arrives first is the network's choice (stop 50's CI runner delivered them together and
        # the second was refused): what holds is how many run or wait (1 + queue_max) and how many are refused
        assert sorted(a.status_code for a in answers) == [200, 200, 200, 503, 503], [a.status_code for a in answers]
        assert busy["peak"] == 1  # never two at once on a backend that takes one
        refused = [a for a in answers if a.status_code == 503]
        for answer in refused:
            error = answer.json()["error"]
            assert error["code"] == "pool_busy" and "(queue_max)" in error["message"]
            assert int(answer.headers["retry-after"]) >= 1
        metrics = httpx.get(f"{gateway}/metrics", timeout=10).text
        assert 'model="tiny",node="",outcome="busy"} 2.0' in metrics
