"""Helpers of the pool tests: node agents in threads, killing a llama.cpp node the test started, and a node that
streams a recorded answer (where a test needs one model output on cue, or a chat that takes its time)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from redis import Redis

from sentinel.settings import Settings
from sentinel_pool.agent import Agent, agent_thread
from tests.support.servers import serve


@contextmanager
def running_agent(settings: Settings, node: str, *backends: str, mac: str = "") -> Iterator[Agent]:
    """A node agent heartbeating in a thread until the block ends (then it withdraws the node)."""
    pool = settings.pool.model_copy(update={"node": node, "backends": list(backends), "mac": mac})
    agent = Agent(settings.model_copy(update={"pool": pool}), Redis.from_url(settings.redis_url, decode_responses=True))
    with agent_thread(agent):
        yield agent


def kill_llama(base_url: str) -> None:
    """SIGKILL the llama.cpp server this test process started on ``base_url``'s port (found among its own
    children by the ``--port=`` argument it was given): a node dying, with no chance to close anything."""
    port = base_url.rsplit(":", 1)[1].split("/", 1)[0]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and f"--port={port}".encode() in arguments:
            os.kill(int(entry.name), signal.SIGKILL)
            return
    raise AssertionError(f"no llama.cpp child of this test listens on port {port}")


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def slot_tasks(base_url: str) -> int | None:
    """The id of the last task llama.cpp's only slot ran (None: it never ran one): a node's own record of
    whether a request reached it."""
    slots = httpx.get(base_url.removesuffix("/v1") + "/slots", timeout=10).json()
    return slots[0].get("id_task")


def completion(content: str | None, finish_reason: str = "stop") -> dict[str, Any]:
    """A non-streamed OpenAI chat completion whose message says ``content``."""
    message = {"role": "assistant", "content": content}
    choice = {"index": 0, "message": message, "finish_reason": finish_reason}
    return {"id": "c", "object": "chat.completion", "choices": [choice]}


def stream_payloads(pieces: list[str], model: str, finish_reason: str = "stop") -> list[str]:
    """OpenAI stream payloads of ``pieces`` as llama.cpp sends them: role first, content, finish, [DONE]."""
    head = {"id": "c", "object": "chat.completion.chunk", "model": model}
    deltas = [{"role": "assistant", "content": None}] + [{"content": piece} for piece in pieces]
    events = [head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
    events.append(head | {"choices": [{"index": 0, "delta": {}, "finish_reason": finish_reason}]})
    return [json.dumps(event) for event in events] + ["[DONE]"]


@contextmanager
def recorded_node(
    pieces: list[str],
    model: str,
    piece_delay_s: float = 0.0,
    received: list[dict[str, Any]] | None = None,
    busy: dict[str, int] | None = None,
    host: str = "127.0.0.1",
) -> Iterator[str]:
    """A real OpenAI-shaped server on loopback answering every chat with the recorded ``pieces`` (streamed one
    per ``piece_delay_s`` when asked to stream); yields its root URL (``/v1`` is the API base). ``received``
    collects the chat request bodies as they arrived; ``busy`` keeps ``now`` and ``peak``, the chats it is
    answering at once."""
    node = FastAPI()
    gauge = busy if busy is not None else {}
    gauge.update(now=0, peak=0)

    def begin() -> None:
        gauge["now"] += 1
        gauge["peak"] = max(gauge["peak"], gauge["now"])

    @node.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @node.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model, "object": "model"}]}

    @node.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        body = await request.json()
        if received is not None:
            received.append(body)
        begin()
        if not body.get("stream"):
            await asyncio.sleep(piece_delay_s * len(pieces))
            gauge["now"] -= 1
            return JSONResponse(completion("".join(pieces)))

        async def events() -> AsyncIterator[str]:
            try:  # the pause comes between pieces: after [DONE] the server is done, as a real one is
                for index, data in enumerate(stream_payloads(pieces, model)):
                    if index:
                        await asyncio.sleep(piece_delay_s)
                    yield f"data: {data}\n\n"
            finally:
                gauge["now"] -= 1

        return StreamingResponse(events(), media_type="text/event-stream")

    with serve(node, host=host) as url:
        yield url
