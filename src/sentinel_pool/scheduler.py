"""Choosing the node for one attempt, counting the job there the moment it is chosen, and queueing when every
node is full. The gateway's one router: the API's gateway (over Redis) and the daemon leader (in memory) both.

The gateway's view of the registry (``RegistryView``) is the last read of the pool, at most ``max_age_s`` old,
plus what this gateway has done since: jobs it has *chosen* but not yet written to the ledger (``reserve``)
and jobs it has started or ended since the read. Ranking and reserving happen in one synchronous step
(``Scheduler.choose``, no ``await`` in between), so a burst of simultaneous requests ranks on counts that already
include every choice made before it: 25 streams to two identical nodes split 13/12 instead of 25/0.

Backends whose circuit breaker is open (``breaker``) are left out, with the reason logged; when that leaves
none, the request is answered 503 with ``Retry-After`` set to the earliest probe, without reaching any node.

A backend takes as many requests at once as it has slots (llama.cpp says), else ``node_max_jobs``: more would
only queue inside the model server, where nobody sees or bounds it. When every usable backend is at that,
the request waits in one FIFO queue (``Scheduler.turn``: at most ``queue_max`` waiting, each at most
``queue_wait_s``) until a request ends or the pool changes; past either it is 503 ``pool_busy`` with
``Retry-After``, never a pile-up on a node.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, replace

from sentinel_pool.admission import Sticky
from sentinel_pool.breaker import Breaker, Key
from sentinel_pool.errors import PoolBusy
from sentinel_pool.jobs import Assignment
from sentinel_pool.registry import Snapshot
from sentinel_pool.routing import Candidate, rank


class RegistryView:
    """The registry as this gateway last read it, plus its own jobs since (chosen, started, ended).
    ``max_age_s`` 0 reads the registry on every request."""

    def __init__(self, read: Callable[[], Awaitable[Snapshot]], max_age_s: float) -> None:
        self._read, self._max_age = read, max_age_s
        self._snapshot: Snapshot | None = None
        self._read_at = 0.0
        self._since: Counter[Key] = Counter()  # started minus ended since the last read
        self._pending: Counter[Key] = Counter()  # chosen, not yet in the ledger: no read can have counted them
        self._reading: asyncio.Future[None] | None = None

    async def current(self) -> Snapshot:
        now = time.monotonic()
        if self._snapshot is None or now - self._read_at >= self._max_age:
            await self._reread(now)
        assert self._snapshot is not None
        if not any(self._since.values()) and not any(self._pending.values()):
            return self._snapshot
        active = Counter(self._snapshot.active)
        active.update(self._since)
        active.update(self._pending)
        return Snapshot(self._snapshot.nodes, {key: max(0, count) for key, count in active.items()})

    async def _reread(self, now: float) -> None:
        """One read at a time (a burst shares it, and a caller cancelled while waiting does not cancel it)."""
        if self._reading is None:
            self._reading = asyncio.ensure_future(self._read_into(now))
        await asyncio.shield(self._reading)

    async def _read_into(self, now: float) -> None:
        """Read the registry and keep it, inside the shared read itself: a request that finds the read already
        done must find its snapshot kept too (when the first reader kept it after waking, a request run in
        between met a finished read and no snapshot: a bare 500 in a burst). What happened before the read began
        is in it, what happened while it ran may be, so that stays counted (over-counting a job for one read is
        the safe side)."""
        try:
            before = Counter(self._since)
            self._snapshot = await self._read()
            self._since.subtract(before)
            self._read_at = now
        finally:
            self._reading = None

    def reserve(self, key: Key) -> None:
        self._pending[key] += 1

    def unreserve(self, key: Key) -> None:
        self._pending[key] -= 1

    def started(self, a: Assignment, *, reserved: bool = False) -> None:
        """``a`` is in the ledger now (a later read counts it); ``reserved``: it was counted at its choice."""
        if reserved:
            self.unreserve((a.node, a.url))
        self._since[(a.node, a.url)] += 1

    def ended(self, a: Assignment) -> None:
        self._since[(a.node, a.url)] -= 1


@dataclass(frozen=True)
class Choice:
    candidate: Candidate
    ranked: list[Candidate]  # every candidate of this attempt, best first, breaker reasons included
    sticky: bool = False  # it went to the node holding its conversation


class NothingToChoose(Exception):
    """No backend may take this attempt; ``retry_after_s`` > 0 when some will after a cooldown."""

    def __init__(self, reasons: list[str], retry_after_s: float) -> None:
        super().__init__("; ".join(reasons))
        self.reasons, self.retry_after_s = reasons, retry_after_s


@dataclass(frozen=True)
class Limits:
    """The pool settings of the same names (``PoolSettings``)."""

    node_max_jobs: int  # requests at once on a backend that does not say its slots
    queue_max: int
    queue_wait_s: float
    recheck_s: float = 0.5  # a waiter looks again this often (another gateway's request may have ended)


class Scheduler:
    def __init__(self, view: RegistryView, breaker: Breaker, sticky: Sticky, limits: Limits) -> None:
        self.view, self.breaker, self.sticky, self.limits = view, breaker, sticky, limits
        self._waiting: deque[asyncio.Future[None]] = deque()
        self.rejected = 0

    @property
    def queued(self) -> int:
        return len(self._waiting)

    def capacity(self, candidate: Candidate) -> int:
        return candidate.slots or self.limits.node_max_jobs

    def choose(
        self, pool: Snapshot, model: str, tried: Collection[Key], conversation: str | None = None
    ) -> Choice | None:
        """The best backend for ``model`` not yet ``tried`` whose breaker lets it through and that has room,
        reserved at once; a conversation's next turn goes back to the node that served it (its prompt cache)
        unless that node is full or ``sticky_slack`` busier than the least busy (``admission.Sticky``). None:
        every usable backend is full (wait: ``turn``)."""
        ranked, usable, waits, reasons = [], [], [], []
        for candidate in rank(pool, model):
            key = (candidate.node, candidate.url)
            if key in tried:
                continue
            wait = self.breaker.blocked(key)
            note = self.breaker.reason(key)
            shown = replace(candidate, reasons=(*candidate.reasons, note)) if note else candidate
            ranked.append(shown)
            if wait:
                waits.append(wait)
                reasons.append(f"{candidate.node} ({candidate.url}): {note}")
            else:
                usable.append(shown)
        if not usable:
            raise NothingToChoose(reasons, min(waits, default=0.0))

        def load(candidate: Candidate) -> int:
            return pool.active.get((candidate.node, candidate.url), 0)

        free = [c for c in usable if load(c) < self.capacity(c)]
        taken = self.sticky.pick(free, load, conversation)
        if taken is None:
            return None
        self.sticky.served(conversation, taken)
        chosen = taken.candidate
        key = (chosen.node, chosen.url)
        self.view.reserve(key)
        self.breaker.taken(key)
        return Choice(chosen, ranked, taken.sticky)

    async def turn(self, model: str, tried: Collection[Key], conversation: str | None, budget_s: float) -> Choice:
        """``choose``, waiting in the FIFO queue while every usable backend is full, at most ``queue_wait_s``
        (and the request's ``budget_s``). Raises ``PoolBusy`` (queue full, or the wait ran out) and
        ``NothingToChoose``."""
        pool = await self.view.current()
        if not self._waiting and (choice := self.choose(pool, model, tried, conversation)) is not None:
            return choice
        if len(self._waiting) >= self.limits.queue_max:
            self.rejected += 1
            raise PoolBusy(
                f"every node serving {model!r} is busy and {self.limits.queue_max} requests already wait "
                "(queue_max): retry in a moment",
                retry_after_s=self.limits.queue_wait_s / 4,
            )
        wait_s = min(self.limits.queue_wait_s, budget_s)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        chosen = False
        try:
            async with asyncio.timeout(wait_s):
                while True:
                    await asyncio.wait([turn], timeout=self.limits.recheck_s)
                    if turn.done() or self._waiting[0] is turn:  # woken, or first in line at a look of its own
                        pool = await self.view.current()
                        if (choice := self.choose(pool, model, tried, conversation)) is not None:
                            chosen = True
                            return choice
                    if turn.done():  # woken, but not free after all: first in line again
                        turn = asyncio.get_running_loop().create_future()
                        self._waiting.appendleft(turn)
        except TimeoutError:
            self.rejected += 1
            raise PoolBusy(
                f"every node serving {model!r} stayed busy for the {wait_s:g} s a request may wait "
                "(queue_wait_s, or what was left of request_timeout_s): retry in a moment",
                retry_after_s=self.limits.queue_wait_s / 4,
            ) from None
        finally:
            if turn in self._waiting:
                self._waiting.remove(turn)
            if chosen or (turn.done() and not turn.cancelled()):
                self.wake()  # the next in line may fit too (or this one left with the turn it was given)

    def wake(self) -> None:
        """Give the first waiter a look: a request ended, or the pool changed."""
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
