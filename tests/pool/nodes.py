"""Helpers of the pool tests: node agents in threads, and killing a llama.cpp node the test started."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from redis import Redis

from sentinel.pool.agent import Agent, agent_thread
from sentinel.settings import Settings


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
