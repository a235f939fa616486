"""The router's queue as logic (``scheduler.Scheduler.turn``): when every backend is at its capacity, waiters get
freed slots in the order they came, a full queue or a wait that runs out is ``PoolBusy`` (the 503 with
Retry-After), a node joining wakes the queue, a backend that does not say its slots takes ``node_max_jobs``; and
the conversation key is the same across turns."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from sentinel_pool.admission import Sticky, conversation_key
from sentinel_pool.breaker import Breaker
from sentinel_pool.errors import PoolBusy
from sentinel_pool.registry import BackendRecord, NodeRecord, Snapshot
from sentinel_pool.scheduler import Limits, RegistryView, Scheduler

MODEL = "m"
URL = "http://x/v1"


class _Pool:
    """The registry as a test sets it: nodes, and the jobs in flight a ledger would count."""

    def __init__(self, *nodes: str, slots: int | None = 1) -> None:
        self.nodes, self.slots = list(nodes), slots
        self.active: Counter[tuple[str, str]] = Counter()

    async def read(self) -> Snapshot:
        backend = BackendRecord(url=URL, kind="openai", models=[MODEL], loaded=[MODEL], slots=self.slots)
        return Snapshot([NodeRecord(node=n, backends=[backend]) for n in self.nodes], dict(self.active))


def _scheduler(pool: _Pool, node_max_jobs: int = 4, queue_max: int = 8, queue_wait_s: float = 5) -> Scheduler:
    view = RegistryView(pool.read, 0)
    return Scheduler(view, Breaker(2, 5, 60), Sticky(2), Limits(node_max_jobs, queue_max, queue_wait_s))


async def _take(scheduler: Scheduler, pool: _Pool, budget_s: float = 30) -> str:
    """One request's turn, counted on its node as the gateway's ledger would count it."""
    choice = await scheduler.turn(MODEL, (), None, budget_s)
    key = (choice.candidate.node, choice.candidate.url)
    scheduler.view.unreserve(key)
    pool.active[key] += 1
    return choice.candidate.node


def _release(scheduler: Scheduler, pool: _Pool, node: str) -> None:
    pool.active[(node, URL)] -= 1
    scheduler.wake()


def test_freed_slots_go_to_the_waiters_in_the_order_they_came_and_a_wait_runs_out() -> None:
    async def scenario() -> tuple[list[int], str, str]:
        pool = _Pool("a")
        scheduler = _scheduler(pool, queue_max=8, queue_wait_s=5)
        await _take(scheduler, pool)  # the node's one slot
        order: list[int] = []

        async def waiter(n: int) -> None:
            node = await _take(scheduler, pool)
            order.append(n)
            await asyncio.sleep(0.01)
            _release(scheduler, pool, node)

        waiters = []
        for n in range(3):
            waiters.append(asyncio.create_task(waiter(n)))
            await asyncio.sleep(0.01)
        assert scheduler.queued == 3
        _release(scheduler, pool, "a")
        await asyncio.gather(*waiters)
        hurried = _scheduler(busy := _Pool("a"), queue_max=8, queue_wait_s=0.2)
        await _take(hurried, busy)
        with pytest.raises(PoolBusy) as ran_out:
            await _take(hurried, busy)
        crowded = _scheduler(full := _Pool("a"), queue_max=1, queue_wait_s=5)
        await _take(crowded, full)
        queued = asyncio.create_task(_take(crowded, full))
        await asyncio.sleep(0.05)
        with pytest.raises(PoolBusy) as no_room:
            await _take(crowded, full)
        queued.cancel()
        return order, str(ran_out.value), str(no_room.value) + str(no_room.value.headers())

    order, ran_out, no_room = asyncio.run(scenario())
    assert order == [0, 1, 2]
    assert "stayed busy for the 0.2 s" in ran_out
    assert "1 requests already wait (queue_max)" in no_room and "Retry-After" in no_room


def test_a_node_joining_wakes_the_queue_and_a_silent_backend_takes_node_max_jobs() -> None:
    async def scenario() -> tuple[str, list[str]]:
        pool = _Pool("a")
        scheduler = _scheduler(pool)
        await _take(scheduler, pool)
        waiting = asyncio.create_task(_take(scheduler, pool))
        await asyncio.sleep(0.05)
        pool.nodes.append("b")
        scheduler.wake()  # what the daemon's heartbeat does while requests wait
        joined = await waiting
        silent = _Pool("a", slots=None)
        capped = _scheduler(silent, node_max_jobs=2, queue_wait_s=0.3)
        taken = [await _take(capped, silent), await _take(capped, silent)]
        with pytest.raises(PoolBusy):
            await _take(capped, silent)  # a third at once would queue inside the model server: it waits here
        return joined, taken

    joined, taken = asyncio.run(scenario())
    assert joined == "b" and taken == ["a", "a"]


def test_the_conversation_key_is_the_same_across_turns_and_differs_between_conversations() -> None:
    start = [{"role": "system", "content": "s"}, {"role": "user", "content": "q1"}]
    later = [*start, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "q2"}]
    one = conversation_key({"model": MODEL, "messages": start}, None)
    assert one is not None and one == conversation_key({"model": MODEL, "messages": later}, None)
    assert one != conversation_key({"model": MODEL, "messages": [start[0], {"role": "user", "content": "x"}]}, None)
    assert conversation_key({"model": MODEL, "messages": later}, "chat-42") == "h:chat-42"
    assert conversation_key({"model": MODEL, "prompt": "p"}, None) is None


def test_a_request_that_finds_the_shared_read_already_done_finds_its_snapshot() -> None:
    """The first request starts the registry read and waits for it; the read finishes; a second request runs
    before the first wakes (a burst's order on one loop). It must see the pool, not an empty view (once a bare
    500 for a burst's first streams)."""

    async def scenario() -> tuple[int, int]:
        pool, answered = _Pool("a", "b"), asyncio.Event()

        async def slow_read() -> Snapshot:
            await answered.wait()
            return await pool.read()

        view = RegistryView(slow_read, 0)
        first = asyncio.create_task(view.current())
        await asyncio.sleep(0)  # the first request starts the read and waits on it
        answered.set()
        await asyncio.sleep(0)  # the read finishes; the first request is woken but has not run yet
        second = await view.current()
        return len(second.nodes), len((await first).nodes)

    assert asyncio.run(scenario()) == (2, 2)
