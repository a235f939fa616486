"""Server-sent events from a node, held back until the first token, then passed on as they come.

A stream is only handed to the client once it carries output (a token, a tool call, an end or an error): the
role-only event a server sends first is held, so a node that dies before its first token can be replaced
without the client ever seeing it. After that, a node lost mid-stream ends the stream with one explicit error
event (OpenAI clients raise it), and the job is never re-run: the client already has part of an answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import anyio

from sentinel_pool.jobs import Assignment
from sentinel_pool.routing import Candidate

log = logging.getLogger("sentinel.pool")

DONE = "[DONE]"
_END = b""  # the node's stream ran out
# What talking to a node can raise; node_faults.failure tells whether the node can have received the request.
TRANSPORT_ERRORS = (aiohttp.ClientError, asyncio.TimeoutError)


class Observer(Protocol):
    """What the gateway reports as it works (the API maps it to Prometheus metrics)."""

    def failover(self, model: str, node: str, reason: str) -> None: ...

    def first_token(self, model: str, node: str, seconds: float) -> None: ...

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None: ...

    def tool_calls(self, model: str, node: str, outcome: str) -> None:
        """What became of a tools request's answer: native, repaired, text, unknown_tool, invalid_arguments."""


class NodeFailed(Exception):
    """This node could not serve the request; ``reached``: it may have received it (so it may have run it)."""

    def __init__(self, reason: str, *, reached: bool) -> None:
        super().__init__(reason)
        self.reason, self.reached = reason, reached


def is_output(data: str) -> bool:
    """Whether one SSE data payload carries output (a token, a tool call, an end, an error), not just a role."""
    if not data:  # a comment (keep-alive ping) or an event without data
        return False
    if data == DONE:
        return True
    try:
        payload: Any = json.loads(data)
    except json.JSONDecodeError:
        return True  # not ours to judge: pass it on
    if not isinstance(payload, dict) or "error" in payload:
        return True
    for choice in payload.get("choices") or []:
        delta = choice.get("delta") or {}
        if choice.get("finish_reason") or delta.get("content") or delta.get("tool_calls") or choice.get("text"):
            return True
        if delta.get("reasoning_content"):
            return True
    return False


_BOUNDARIES = (b"\n\n", b"\r\n\r\n")
_EVENT_SPLIT = re.compile(r"\r?\n\r?\n")


async def event_blocks(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """The response's bytes as they arrive, cut after the last complete event: each block holds whole events
    (one or more), so a stream that breaks never leaves half an event before the error event."""
    pending = b""
    async for chunk in response.content.iter_any():
        pending += chunk
        cut = max(pending.rfind(end) + len(end) if end in pending else -1 for end in _BOUNDARIES)
        if cut > 0:
            yield pending[:cut]
            pending = pending[cut:]


def sse_data(block: bytes) -> list[str]:
    """The data payloads of the events in a block (an event without data gives an empty string)."""
    payloads = []
    for event in _EVENT_SPLIT.split(block.decode("utf-8", errors="replace")):
        if event.strip():
            lines = event.splitlines()
            payloads.append("\n".join(line[5:].lstrip() for line in lines if line.startswith("data:")))
    return payloads


def ends_stream(block: bytes) -> bool:
    """Whether the block's last event is the end marker (``data: [DONE]``)."""
    return block.rstrip().endswith(DONE.encode()) and sse_data(block)[-1:] == [DONE]


def error_event(message: str, code: str) -> bytes:
    """The explicit end of a stream that broke: OpenAI clients raise it as an API error."""
    data = json.dumps({"error": {"message": message, "type": "server_error", "code": code}})
    return f"data: {data}\n\n".encode()


@dataclass(frozen=True)
class Framing:
    """How a stream is cut into whole messages, which carry output, which ends it, and how a break is said:
    OpenAI's server-sent events (``SSE``) or Ollama's JSON lines (``ollama_native.NDJSON``)."""

    blocks: Callable[[aiohttp.ClientResponse], AsyncIterator[bytes]]
    has_output: Callable[[bytes], bool]
    ends: Callable[[bytes], bool]
    error: Callable[[str, str], bytes]
    media_type: str


SSE = Framing(
    event_blocks,
    lambda block: any(is_output(data) for data in sse_data(block)),
    ends_stream,
    error_event,
    "text/event-stream",
)


class Stream:
    """A streamed answer past its first token. Iterate ``chunks()`` exactly once."""

    def __init__(
        self,
        end: Callable[[Assignment, str], Awaitable[None]],
        observer: Observer,
        read_timeout_s: float,
        assignment: Assignment,
        candidate: Candidate,
        response: aiohttp.ClientResponse,
        blocks: AsyncIterator[bytes],
        head: list[bytes],
        started: float,
        framing: Framing = SSE,
        *,
        sticky: bool = False,
    ) -> None:
        self._end, self._observer, self._read_timeout = end, observer, read_timeout_s
        self.assignment, self.candidate = assignment, candidate
        self._response, self._blocks, self._head, self._started = response, blocks, head, started
        self.framing, self.sticky = framing, sticky

    @property
    def node(self) -> str:
        return self.candidate.node

    async def chunks(self) -> AsyncIterator[bytes]:
        """The node's events, whole, as they come; a node lost mid-stream ends it with one error event."""
        outcome = "cancelled"  # unless the loop below ends otherwise: the client went away
        try:
            ended = any(self.framing.ends(block) for block in self._head)
            for block in self._head:
                yield block
            try:
                while not ended:
                    async with asyncio.timeout(self._read_timeout):
                        block = await anext(self._blocks, _END)
                    if block is _END:
                        raise NodeFailed("the node closed the stream before its end", reached=True)
                    yield block
                    ended = self.framing.ends(block)
                outcome = "ok"
            except (*TRANSPORT_ERRORS, NodeFailed) as error:
                reason = str(error) if isinstance(error, NodeFailed) else f"{type(error).__name__}: {error}"
                outcome = "broken"
                log.warning("stream broken", extra={"job": self.assignment.job, "node": self.node, "reason": reason})
                yield self.framing.error(
                    f"node {self.node} was lost mid-stream ({reason}); the answer above is incomplete and was not "
                    "re-run elsewhere, because tokens had already been sent",
                    "node_lost",
                )
        finally:
            with anyio.CancelScope(shield=True):  # a client that went away must not skip the bookkeeping
                if outcome == "ok":
                    self._response.release()
                else:
                    self._response.close()
                await self._end(self.assignment, "done" if outcome == "ok" else "broken")
                seconds = time.perf_counter() - self._started
                self._observer.finished("/chat/completions", self.candidate.model, self.node, outcome, seconds)
