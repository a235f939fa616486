"""Which node a daemon leader gives a request to, and when it makes the request wait instead.

- **Capacity.** A backend takes as many requests at once as it has slots (llama.cpp says), else
  ``node_max_jobs``. Past that, another request would only queue inside the model server, where nobody can see
  or bound it.
- **Sticky conversations.** The turns of one conversation share a prefix (the system prompt and the first user
  message), which the node that served the last turn still holds in its prompt cache: the next turn goes back
  there unless that node is overloaded (full, or more than ``sticky_slack`` requests busier than the least busy
  candidate), when the cache is worth less than the wait.
- **The queue.** When every candidate is full, the request waits in one FIFO queue (at most ``queue_max``
  requests, each at most ``queue_wait_s``) until a request ends somewhere; a full queue or a wait that runs out is
  a 503 with ``Retry-After``, never a pile-up on a node.

Choosing and counting happen in one synchronous step (``Admission.take``), so a burst sees every earlier choice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from sentinel.pool.registry import Snapshot
from sentinel.pool.routing import Candidate, rank

CONVERSATION_HEADER = "x-sentinel-conversation"
STICKY_REMEMBERED = 4096  # conversations whose node is remembered (the least recently used is forgotten)

Key = tuple[str, str]  # (node, backend url)


class QueueFull(Exception):
    """Every candidate is full and the queue is too (``queued`` waiting), or the wait ran out."""

    def __init__(self, message: str, queued: int) -> None:
        super().__init__(message)
        self.queued = queued


def conversation_key(body: dict[str, Any], header: str | None) -> str | None:
    """The conversation a chat request continues: the client's ``x-sentinel-conversation``, else the model and
    the messages up to the first user message (the same in every later turn). None: no messages to go by."""
    if header:
        return "h:" + header[:200]
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    end = next((i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user"), None)
    if end is None:
        return None
    prefix = json.dumps([body.get("model"), messages[: end + 1]], sort_keys=True, default=str)
    return "p:" + hashlib.sha256(prefix.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Taken:
    candidate: Candidate
    sticky: bool  # it went to the node holding its conversation


class Sticky:
    """Which node last served each conversation (the one holding its prompt cache), the least recently used
    forgotten past ``STICKY_REMEMBERED``; and the one rule of when a turn goes back there."""

    def __init__(self, slack: int) -> None:
        self.slack = slack
        self._holders: OrderedDict[str, str] = OrderedDict()
        self.hits = 0

    def pick(self, free: list[Candidate], load: Callable[[Candidate], int], conv: str | None) -> Taken | None:
        """Among ``free`` candidates (best first, each with room), the conversation's own node unless it is more
        than ``slack`` requests busier than the least busy; else the best. None: no candidate."""
        if not free:
            return None
        holder = self._holders.get(conv) if conv else None
        if holder is not None:
            least = min(load(c) for c in free)
            for candidate in free:
                if candidate.node == holder and load(candidate) <= least + self.slack:
                    return Taken(candidate, True)
        return Taken(free[0], False)

    def served(self, conv: str | None, taken: Taken) -> None:
        self.hits += taken.sticky
        if conv is None:
            return
        self._holders[conv] = taken.candidate.node
        self._holders.move_to_end(conv)
        while len(self._holders) > STICKY_REMEMBERED:
            self._holders.popitem(last=False)


class Admission:
    def __init__(self, node_max_jobs: int, queue_max: int, queue_wait_s: float, sticky_slack: int) -> None:
        self.node_max_jobs, self.queue_max, self.queue_wait_s = node_max_jobs, queue_max, queue_wait_s
        self.sticky = Sticky(sticky_slack)
        self.in_flight: Counter[Key] = Counter()
        self._waiting: deque[asyncio.Future[None]] = deque()
        self.rejected = 0

    @property
    def queued(self) -> int:
        return len(self._waiting)

    def capacity(self, pool: Snapshot, key: Key) -> int:
        record = pool.node(key[0])
        backend = next((b for b in record.backends if b.url == key[1]), None) if record else None
        return backend.slots if backend is not None and backend.slots else self.node_max_jobs

    def _load(self, candidate: Candidate) -> int:
        return self.in_flight[(candidate.node, candidate.url)]

    def take(
        self, pool: Snapshot, model: str, allowed: Collection[str], tried: Collection[Key], conv: str | None
    ) -> Taken | None:
        """The backend for this attempt, counted at once; None when every candidate is full."""
        ranked = [c for c in rank(pool, model) if c.node in allowed and (c.node, c.url) not in tried]
        free = [c for c in ranked if self._load(c) < self.capacity(pool, (c.node, c.url))]
        taken = self.sticky.pick(free, self._load, conv)
        if taken is None:
            return None
        self.in_flight[(taken.candidate.node, taken.candidate.url)] += 1
        self.sticky.served(conv, taken)
        return taken

    async def wait_turn(
        self,
        pool_now: Callable[[], Snapshot],
        model: str,
        allowed: Collection[str],
        tried: Collection[Key],
        conv: str | None,
    ) -> Taken | None:
        """``take``, waiting in the queue while every candidate is full. ``pool_now()`` is the pool as it is when
        the request's turn comes. None: no candidate left at all (not a matter of waiting)."""
        pool = pool_now()
        if not [c for c in rank(pool, model) if c.node in allowed and (c.node, c.url) not in tried]:
            return None
        if not self._waiting and (taken := self.take(pool, model, allowed, tried, conv)) is not None:
            return taken
        if len(self._waiting) >= self.queue_max:
            self.rejected += 1
            raise QueueFull(
                f"every node serving {model!r} is busy and {self.queue_max} requests already wait", self.queued
            )
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        taken = None
        try:
            async with asyncio.timeout(self.queue_wait_s):
                while True:
                    await turn
                    if (taken := self.take(pool_now(), model, allowed, tried, conv)) is not None:
                        return taken
                    turn = asyncio.get_running_loop().create_future()  # not free after all: first in line again
                    self._waiting.appendleft(turn)
        except TimeoutError:
            self.rejected += 1
            raise QueueFull(
                f"every node serving {model!r} stayed busy for the {self.queue_wait_s:g} s a request may wait "
                "(queue_wait_s)",
                self.queued,
            ) from None
        finally:
            if turn in self._waiting:
                self._waiting.remove(turn)
            elif taken is None and turn.done() and not turn.cancelled():
                self.wake()  # woken but leaving without a slot (timed out, cancelled): pass the turn on

    def release(self, key: Key) -> None:
        """A request ended on ``key``: its slot goes to the first in line."""
        self.in_flight[key] -= 1
        if self.in_flight[key] <= 0:
            del self.in_flight[key]
        self.wake()

    def wake(self) -> None:
        """Give the first waiter a look (a slot freed, or the pool changed: a node joined)."""
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
