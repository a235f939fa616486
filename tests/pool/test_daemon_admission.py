"""Admission on the daemon pool, with daemons as separate processes and real HTTP model servers: a conversation's
next turn goes back to the node that holds its prompt cache unless that node is overloaded, and when every node
is full the leader queues requests (bounded) instead of piling them on, answering 503 with Retry-After past that."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from tests.pool.daemons import DaemonProcess, daemons, wait_for_leader
from tests.pool.nodes import recorded_node, wait_for
from tests.pool.test_daemons import MODEL, _specs


def _serving(group: list[DaemonProcess], nodes: set[str]) -> bool:
    """The leader (group[0]) routes to every node of ``nodes`` (each heard, with its model)."""
    cluster = group[0].get("/api/cluster").json()
    return nodes <= {n["node"] for n in cluster["nodes"] if MODEL in str(n.get("backends"))}


def _turn(system: str, turns: int) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "first question"}]
    for n in range(1, turns):
        messages += [{"role": "assistant", "content": f"answer {n}"}, {"role": "user", "content": f"question {n}"}]
    return {"model": MODEL, "messages": messages, "stream": True}


async def _stream(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> httpx.Response:
    async with client.stream("POST", f"{url}/v1/chat/completions", json=body) as answer:
        text = "".join([piece async for piece in answer.aiter_text()])
        assert answer.status_code != 200 or "[DONE]" in text, text
        return answer


def test_a_conversation_sticks_to_the_node_holding_its_cache_unless_that_node_is_overloaded(tmp_path: Path) -> None:
    one_busy: dict[str, int] = {}
    with (
        recorded_node(list("abcdefgh"), MODEL, 0.15, busy=one_busy) as one,
        recorded_node(list("abcdefgh"), MODEL, 0.15) as two,
    ):
        specs = _specs([16_000, 8_000, 8_000], [[], [f"openai={one}/v1"], [f"openai={two}/v1"]])
        with daemons(specs, tmp_path) as group:
            assert wait_for_leader(group)[0] == "node-a"
            wait_for(lambda: _serving(group, {"node-b", "node-c"}), 20, "the leader to hear both nodes' models")
            url = group[2].url  # a follower: the client's one URL

            async def scenario() -> tuple[list[httpx.Response], list[httpx.Response]]:
                async with httpx.AsyncClient(timeout=60) as client:
                    other = asyncio.create_task(_stream(client, url, _turn("conversation A", 1)))
                    while one_busy["now"] == 0:  # A is on node-b (equal nodes: the first by name)
                        await asyncio.sleep(0.02)
                    first = await _stream(client, url, _turn("conversation C", 1))  # node-b is busy: node-c
                    await other
                    # both idle now, node-b first on every score: the next turn still goes where its cache is
                    again = [await _stream(client, url, _turn("conversation C", 2))]
                    again.append(await _stream(client, url, _turn("conversation A", 2)))
                    crowd = await asyncio.gather(*(_stream(client, url, _turn("conversation C", 3)) for _ in range(4)))
                    return [first, *again], list(crowd)

            turns, crowd = asyncio.run(scenario())
            placed = [(t.headers["x-sentinel-node"], t.headers["x-sentinel-sticky"]) for t in turns]
            assert placed == [("node-c", "false"), ("node-c", "true"), ("node-b", "true")], placed
            # four turns of C at once: C's node takes them until it is sticky_slack (2) busier than node-b
            shares = Counter(t.headers["x-sentinel-node"] for t in crowd)
            assert shares == {"node-c": 3, "node-b": 1}, shares
            metrics = group[0].get("/metrics").text
            assert "sentinel_pool_sticky_hits 5.0" in metrics, metrics


def test_when_every_node_is_full_requests_queue_and_past_the_queue_get_503_with_retry_after(tmp_path: Path) -> None:
    busy = [dict[str, int](), dict[str, int]()]
    with (
        recorded_node(list("abcdef"), MODEL, 0.15, busy=busy[0]) as one,
        recorded_node(list("abcdef"), MODEL, 0.15, busy=busy[1]) as two,
    ):
        specs = _specs([16_000, 8_000, 8_000], [[], [f"openai={one}/v1"], [f"openai={two}/v1"]])
        specs[0]["env"] = {"SENTINEL_POOL__NODE_MAX_JOBS": "1", "SENTINEL_POOL__QUEUE_MAX": "2"}
        with daemons(specs, tmp_path) as group:
            assert wait_for_leader(group)[0] == "node-a"
            wait_for(lambda: _serving(group, {"node-b", "node-c"}), 20, "the leader to hear both nodes' models")

            async def burst() -> list[httpx.Response]:
                async with httpx.AsyncClient(timeout=60) as client:
                    asks = [_turn(f"conversation {n}", 1) for n in range(6)]
                    return list(await asyncio.gather(*(_stream(client, group[1].url, ask) for ask in asks)))

            answers = asyncio.run(burst())
            statuses = Counter(answer.status_code for answer in answers)
            assert statuses == {200: 4, 503: 2}, statuses  # 2 running, 2 waiting, 2 refused
            refused = [answer for answer in answers if answer.status_code == 503]
            assert all(int(answer.headers["retry-after"]) >= 1 for answer in refused)
            assert [b["peak"] for b in busy] == [1, 1]  # never more than node_max_jobs on a node
            cluster = group[0].get("/api/cluster").json()
            assert cluster["queue"] == {"waiting": 0, "max": 2, "rejected": 2}
