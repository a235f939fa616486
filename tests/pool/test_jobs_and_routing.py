"""The job ledger's epochs and re-run rules, the same for both ledgers: in real Redis (gateway processes side by
side) and in memory (the daemon leader's); and the routing score."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from redis import Redis
from redis.asyncio import Redis as AsyncRedis

from sentinel_pool.gateway_wiring import Ledger
from sentinel_pool.jobs import Assignment, JobLedger, NotReassignable, StaleEpoch
from sentinel_pool.ledger_memory import MemoryLedger
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, Snapshot, publish, snapshot
from sentinel_pool.routing import FULL, LOADED, rank
from sentinel_pool.scheduler import RegistryView
from tests.support.redis_prefix import REDIS_URL

Scenario = Callable[[Ledger, Ledger], Awaitable[None]]
LEDGERS = pytest.mark.parametrize("kind", ["redis", "memory"])


def _two_dispatchers(keys: PoolKeys, scenario: Scenario, kind: str = "redis") -> None:
    """Run ``scenario`` with two dispatchers: two gateway processes, each with its own connection to Redis, or two
    requests in the one daemon leader, sharing its memory."""

    async def run() -> None:
        if kind == "memory":
            shared = MemoryLedger(60)
            await scenario(shared, shared)
            return
        first = AsyncRedis.from_url(REDIS_URL, decode_responses=True)
        second = AsyncRedis.from_url(REDIS_URL, decode_responses=True)
        try:
            await scenario(JobLedger(first, keys, 60), JobLedger(second, keys, 60))
        finally:
            await first.aclose()
            await second.aclose()

    asyncio.run(run())


@LEDGERS
def test_a_stale_dispatcher_cannot_send(keys: PoolKeys, kind: str) -> None:
    async def scenario(one: Ledger, two: Ledger) -> None:
        stale = await one.assign("job-1", "node-a", "http://a/v1", owner="gw-1")
        fresh = await two.assign("job-1", "node-b", "http://b/v1", owner="gw-2")  # took it over
        assert (stale.epoch, fresh.epoch) == (1, 2)
        assert isinstance(one, JobLedger | MemoryLedger) and isinstance(two, JobLedger | MemoryLedger)
        with pytest.raises(StaleEpoch, match="epoch 1 may not be sent"):
            await one.send(stale)
        await two.send(fresh)
        assert not await one.done(stale)  # nor can it finish the job in the new owner's name
        assert await two.done(fresh)
        record = await two.record("job-1")
        assert (record["state"], record["node"], record["epoch"]) == ("done", "node-b", "2")
        with pytest.raises(NotReassignable, match="is done"):
            await one.assign("job-1", "node-a", "http://a/v1", owner="gw-1")

    _two_dispatchers(keys, scenario, kind)


@LEDGERS
def test_a_job_that_is_not_idempotent_is_never_rerun(keys: PoolKeys, kind: str) -> None:
    async def scenario(one: Ledger, two: Ledger) -> None:
        first = await one.assign("job-2", "node-a", "http://a/v1", owner="gw-1", idempotent=False, send=True)
        await one.failed(first, reached_node=False)  # connection refused: the node never got it
        second = await two.assign("job-2", "node-b", "http://b/v1", owner="gw-2", send=True)
        assert second.attempt == 2
        await two.failed(second, reached_node=True)  # it may have run there
        # the flag set at creation holds: a later dispatcher cannot declare the job idempotent
        with pytest.raises(NotReassignable, match="not idempotent and was already sent"):
            await one.assign("job-2", "node-c", "http://c/v1", owner="gw-1", idempotent=True)

    _two_dispatchers(keys, scenario, kind)


@LEDGERS
def test_output_delivered_ends_reassignment_and_attempts_are_capped(keys: PoolKeys, kind: str) -> None:
    async def scenario(one: Ledger, two: Ledger) -> None:
        streaming = await one.assign("job-3", "node-a", "http://a/v1", owner="gw-1", send=True)
        await one.streaming(streaming)
        with pytest.raises(NotReassignable, match="already reached the client"):
            await two.assign("job-3", "node-b", "http://b/v1", owner="gw-2")
        assert await one.broken(streaming)
        for attempt in range(3):
            a = await one.assign("job-4", f"node-{attempt}", "http://x/v1", owner="gw-1", send=True)
            await one.failed(a, reached_node=True)
        with pytest.raises(NotReassignable, match="all 3 attempts are spent"):
            await one.assign("job-4", "node-9", "http://x/v1", owner="gw-1")

    _two_dispatchers(keys, scenario, kind)


@LEDGERS
def test_jobs_in_flight_are_counted_per_backend_until_they_end(keys: PoolKeys, kind: str) -> None:
    with Redis.from_url(REDIS_URL, decode_responses=True) as client:
        publish(client, keys, _node("a", loaded=True), ttl_s=30)

    async def active(ledger: Ledger) -> int:
        if isinstance(ledger, MemoryLedger):
            return ledger.active().get(("a", "http://a/v1"), 0)
        assert isinstance(ledger, JobLedger)
        return (await snapshot(ledger.redis, keys)).active.get(("a", "http://a/v1"), 0)

    async def scenario(one: Ledger, two: Ledger) -> None:
        first = await one.assign("job-5", "a", "http://a/v1", owner="gw-1", send=True)
        second = await two.assign("job-6", "a", "http://a/v1", owner="gw-2", send=True)
        assert await active(one) == 2
        await one.done(first)
        await two.failed(second, reached_node=True)
        assert await active(one) == 0

    _two_dispatchers(keys, scenario, kind)


def _node(name: str, loaded: bool, slots: int | None = 1, vram: int | None = None) -> NodeRecord:
    backend = BackendRecord(
        url=f"http://{name}/v1", kind="openai", models=["m"], loaded=["m"] if loaded else [], slots=slots
    )
    return NodeRecord(node=name, vram_free_mb=vram, backends=[backend])


def test_routing_prefers_loaded_then_free_then_idle_then_vram() -> None:
    pool = Snapshot(
        [_node("a", loaded=False, vram=80_000), _node("b", loaded=True), _node("c", loaded=True)],
        {("a", "http://a/v1"): 0, ("b", "http://b/v1"): 1, ("c", "http://c/v1"): 0},
    )
    ranked = rank(pool, "m")
    assert [c.node for c in ranked] == ["c", "b", "a"]
    assert ranked[0].score == LOADED + 100 and "model loaded (+1000)" in ranked[0].reasons
    assert ranked[1].score == LOADED + FULL - 50 and "all 1 slots busy (-500)" in ranked[1].reasons
    assert "model not loaded: it loads before the first token (+0)" in ranked[2].reasons
    assert rank(pool, "other") == []


def test_routing_ties_break_by_name_and_vram_separates_equals() -> None:
    equal = Snapshot([_node("b", True), _node("a", True)], {})
    assert [c.node for c in rank(equal, "m")] == ["a", "b"]
    roomier = Snapshot([_node("a", True, vram=1024), _node("b", True, vram=8 * 1024)], {})
    assert [c.node for c in rank(roomier, "m")] == ["b", "a"]
    broken = _node("a", True)
    broken.backends[0].problem = "ConnectError"
    assert [c.node for c in rank(Snapshot([broken, _node("b", False)], {}), "m")] == ["b"]


def test_the_gateways_registry_view_is_reread_after_its_age_and_counts_its_own_jobs_at_once() -> None:
    reads: list[Snapshot] = [
        Snapshot([_node("a", True)], {("a", "http://a/v1"): 1}),
        Snapshot([_node("a", True), _node("b", True)], {("a", "http://a/v1"): 0, ("b", "http://b/v1"): 0}),
    ]

    async def read() -> Snapshot:
        return reads.pop(0)

    async def scenario() -> None:
        view = RegistryView(read, max_age_s=0.2)
        first = await view.current()
        assert first.active == {("a", "http://a/v1"): 1}
        mine = Assignment("job", 1, 1, "a", "http://a/v1")
        view.started(mine)
        assert (await view.current()).active == {("a", "http://a/v1"): 2}  # no read: its own job counts at once
        view.ended(mine)
        view.ended(Assignment("older", 1, 1, "a", "http://a/v1"))  # one the read had counted
        assert (await view.current()).active == {("a", "http://a/v1"): 0}
        assert len(reads) == 1
        await asyncio.sleep(0.25)
        assert [n.node for n in (await view.current()).nodes] == ["a", "b"]  # re-read once it was old
        assert reads == []

    asyncio.run(scenario())
