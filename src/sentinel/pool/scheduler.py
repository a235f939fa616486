"""Choosing the node for one attempt, and counting the job there the moment it is chosen.

The gateway's view of the registry (``RegistryView``) is the last read of Redis, at most ``max_age_s`` old,
plus what this gateway has done since: jobs it has *chosen* but not yet written to the ledger (``reserve``)
and jobs it has started or ended since the read. Ranking and reserving happen in one synchronous step
(``Scheduler.choose``, no ``await`` in between), so a burst of simultaneous requests ranks on counts that already
include every choice made before it: 25 streams to two identical nodes split 13/12 instead of 25/0.

Backends whose circuit breaker is open (``breaker``) are left out, with the reason logged; when that leaves
none, the request is answered 503 with ``Retry-After`` set to the earliest probe, without reaching any node.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, replace

from sentinel.pool.admission import Sticky
from sentinel.pool.breaker import Breaker, Key
from sentinel.pool.jobs import Assignment
from sentinel.pool.registry import Snapshot
from sentinel.pool.routing import Candidate, rank


class RegistryView:
    """The registry as this gateway last read it, plus its own jobs since (chosen, started, ended).
    ``max_age_s`` 0 reads the registry on every request."""

    def __init__(self, read: Callable[[], Awaitable[Snapshot]], max_age_s: float) -> None:
        self._read, self._max_age = read, max_age_s
        self._snapshot: Snapshot | None = None
        self._read_at = 0.0
        self._since: Counter[Key] = Counter()  # started minus ended since the last read
        self._pending: Counter[Key] = Counter()  # chosen, not yet in the ledger: no read can have counted them
        self._reading: asyncio.Future[Snapshot] | None = None

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
        """One read at a time (a burst shares it); what happened before it began is in it, what happened while
        it ran may be, so that stays counted (over-counting a job for one read is the safe side)."""
        if self._reading is None:
            self._reading = asyncio.ensure_future(self._read())
            before = Counter(self._since)
            try:
                self._snapshot = await self._reading
            finally:
                self._reading = None
            self._since.subtract(before)
            self._read_at = now
        else:
            await asyncio.shield(self._reading)

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


class NothingToChoose(Exception):
    """No backend may take this attempt; ``retry_after_s`` > 0 when some will after a cooldown."""

    def __init__(self, reasons: list[str], retry_after_s: float) -> None:
        super().__init__("; ".join(reasons))
        self.reasons, self.retry_after_s = reasons, retry_after_s


class Scheduler:
    def __init__(self, view: RegistryView, breaker: Breaker, sticky: Sticky) -> None:
        self.view, self.breaker, self.sticky = view, breaker, sticky

    def choose(self, pool: Snapshot, model: str, tried: Collection[Key], conversation: str | None = None) -> Choice:
        """The best backend for ``model`` not yet ``tried`` whose breaker lets it through, reserved at once; a
        conversation's next turn goes back to the node that served it (its prompt cache) unless that node is full
        or ``sticky_slack`` busier than the least busy (``admission.Sticky``)."""
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

        free = [c for c in usable if not c.full]
        taken = self.sticky.pick(free or usable, load, conversation)
        assert taken is not None  # usable is not empty
        self.sticky.served(conversation, taken)
        chosen = taken.candidate
        key = (chosen.node, chosen.url)
        self.view.reserve(key)
        self.breaker.taken(key)
        return Choice(chosen, ranked)
