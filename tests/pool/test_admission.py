"""The leader's admission as logic: waiters get freed slots in the order they came, a wait that runs out is a
``QueueFull`` (the 503), a node joining wakes the queue, and the conversation key is the same across turns."""

from __future__ import annotations

import asyncio

import pytest

from sentinel.pool.admission import Admission, QueueFull, conversation_key
from sentinel.pool.registry import BackendRecord, NodeRecord, Snapshot

MODEL = "m"


def _pool(*nodes: str) -> Snapshot:
    backend = BackendRecord(url="http://x/v1", kind="openai", models=[MODEL], loaded=[MODEL], slots=1)
    return Snapshot([NodeRecord(node=node, backends=[backend]) for node in nodes])


def test_freed_slots_go_to_the_waiters_in_the_order_they_came_and_a_wait_runs_out() -> None:
    async def scenario() -> tuple[list[int], str]:
        admission = Admission(node_max_jobs=4, queue_max=8, queue_wait_s=5, sticky_slack=2)
        pool = _pool("a")
        first = await admission.wait_turn(lambda: pool, MODEL, {"a"}, (), None)
        assert first is not None  # the node's one slot
        order: list[int] = []

        async def waiter(n: int) -> None:
            taken = await admission.wait_turn(lambda: pool, MODEL, {"a"}, (), None)
            assert taken is not None
            order.append(n)
            await asyncio.sleep(0.01)
            admission.release(("a", "http://x/v1"))

        waiters = [asyncio.create_task(waiter(n)) for n in range(3)]
        await asyncio.sleep(0.05)
        assert admission.queued == 3
        admission.release(("a", "http://x/v1"))
        await asyncio.gather(*waiters)
        hurried = Admission(node_max_jobs=1, queue_max=8, queue_wait_s=0.2, sticky_slack=2)
        await hurried.wait_turn(lambda: pool, MODEL, {"a"}, (), None)
        with pytest.raises(QueueFull) as full:
            await hurried.wait_turn(lambda: pool, MODEL, {"a"}, (), None)
        return order, str(full.value)

    order, message = asyncio.run(scenario())
    assert order == [0, 1, 2]
    assert "stayed busy for the 0.2 s" in message


def test_a_node_joining_wakes_the_queue() -> None:
    async def scenario() -> str:
        admission = Admission(node_max_jobs=4, queue_max=8, queue_wait_s=5, sticky_slack=2)
        pools = {"now": _pool("a")}
        await admission.wait_turn(lambda: pools["now"], MODEL, {"a", "b"}, (), None)
        waiting = asyncio.create_task(admission.wait_turn(lambda: pools["now"], MODEL, {"a", "b"}, (), None))
        await asyncio.sleep(0.05)
        pools["now"] = _pool("a", "b")
        admission.wake()  # what the daemon's heartbeat does while requests wait
        taken = await waiting
        assert taken is not None
        return taken.candidate.node

    assert asyncio.run(scenario()) == "b"


def test_the_conversation_key_is_the_same_across_turns_and_differs_between_conversations() -> None:
    start = [{"role": "system", "content": "s"}, {"role": "user", "content": "q1"}]
    later = [*start, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "q2"}]
    one = conversation_key({"model": MODEL, "messages": start}, None)
    assert one is not None and one == conversation_key({"model": MODEL, "messages": later}, None)
    assert one != conversation_key({"model": MODEL, "messages": [start[0], {"role": "user", "content": "x"}]}, None)
    assert conversation_key({"model": MODEL, "messages": later}, "chat-42") == "h:chat-42"
    assert conversation_key({"model": MODEL, "prompt": "p"}, None) is None
