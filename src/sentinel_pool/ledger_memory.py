"""The job ledger in one process's memory: the daemon leader's, where no Redis is (seed 002: the pool's routing
does not depend on it). The same contract as ``jobs.JobLedger`` (the Redis one, shared by gateway replicas),
tested by the same tests (tests/pool/test_ledgers.py): every assignment bumps the job's epoch, whoever acts on an
assignment is refused once a newer one exists, and a job is never assigned again once its output reached the
client, once it is done, once a job that is not idempotent may have run, or after ``max_attempts``.

The leader is the only writer and runs on one event loop, so no step needs a lock: each method is one
synchronous step. The records die with the leader, as its job table does (an idempotency key then starts afresh).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sentinel_pool.jobs import Assignment, NotReassignable, StaleEpoch
from sentinel_pool.registry import NodeRecord, Snapshot

PRUNE_EVERY_S = 60.0
Key = tuple[str, str]  # (node, backend url)


@dataclass
class _Record:
    epoch: int = 0
    attempts: int = 0
    state: str = ""
    idempotent: bool = True
    node: str = ""
    url: str = ""
    changed: float = 0.0


class MemoryLedger:
    def __init__(self, ttl_s: float) -> None:
        self._ttl = ttl_s
        self._jobs: dict[str, _Record] = {}
        self._active: defaultdict[Key, set[str]] = defaultdict(set)
        self._pruned = time.monotonic()

    def active(self) -> dict[Key, int]:
        """Jobs in flight per backend (assigned or sent or streaming, not yet ended)."""
        return {key: len(jobs) for key, jobs in self._active.items() if jobs}

    async def assign(
        self,
        job: str,
        node: str,
        url: str,
        *,
        owner: str,
        idempotent: bool = True,
        max_attempts: int = 3,
        send: bool = False,
    ) -> Assignment:
        """A new epoch of ``job`` on ``node``/``url`` (``send``: already sent). Raises ``NotReassignable``."""
        self._prune()
        record = self._jobs.setdefault(job, _Record(idempotent=idempotent))
        refused = _why_not(record, max_attempts)
        if refused:
            raise NotReassignable(f"job {job} cannot be assigned again: {refused}")
        if record.node:
            self._active[(record.node, record.url)].discard(job)
        record.epoch += 1
        record.attempts += 1
        record.node, record.url, record.state = node, url, "sent" if send else "assigned"
        record.changed = time.monotonic()
        self._active[(node, url)].add(job)
        return Assignment(job, record.epoch, record.attempts, node, url)

    def _to(self, a: Assignment, state: str, allowed: tuple[str, ...], leave: bool) -> tuple[bool, str]:
        record = self._jobs.get(a.job)
        if record is None or record.epoch != a.epoch:
            return False, f"epoch {record.epoch if record else 'none'} is current"
        if record.state not in allowed:
            return False, f"state is {record.state}"
        record.state, record.changed = state, time.monotonic()
        if leave:
            self._active[(a.node, a.url)].discard(a.job)
        return True, ""

    async def send(self, a: Assignment) -> None:
        moved, detail = self._to(a, "sent", ("assigned",), leave=False)
        if not moved:
            raise StaleEpoch(f"job {a.job} epoch {a.epoch} may not be sent: {detail}")

    async def streaming(self, a: Assignment) -> None:
        moved, detail = self._to(a, "streaming", ("sent",), leave=False)
        if not moved:
            raise StaleEpoch(f"job {a.job} epoch {a.epoch} may not deliver output: {detail}")

    async def done(self, a: Assignment) -> bool:
        return self._to(a, "done", ("sent", "streaming"), leave=True)[0]

    async def failed(self, a: Assignment, *, reached_node: bool) -> bool:
        return self._to(a, "lost" if reached_node else "unsent", ("assigned", "sent"), leave=True)[0]

    async def broken(self, a: Assignment) -> bool:
        return self._to(a, "broken", ("streaming",), leave=True)[0]

    async def record(self, job: str) -> dict[str, str]:
        """The job's record, in the Redis ledger's shape (empty when unknown or expired)."""
        r = self._jobs.get(job)
        if r is None:
            return {}
        fields = {"epoch": r.epoch, "attempts": r.attempts, "state": r.state, "idempotent": int(r.idempotent)}
        return {name: str(value) for name, value in fields.items()} | {"node": r.node, "url": r.url}

    def _prune(self) -> None:
        """Forget records unchanged for ``ttl_s`` (the Redis ledger's keys expire the same way)."""
        now = time.monotonic()
        if now - self._pruned < PRUNE_EVERY_S:
            return
        self._pruned = now
        for job in [job for job, r in self._jobs.items() if now - r.changed > self._ttl]:
            r = self._jobs.pop(job)
            self._active[(r.node, r.url)].discard(job)


def _why_not(record: _Record, max_attempts: int) -> str:
    """Why the job may not be assigned again ('' when it may): the ledger's re-running rules."""
    if record.state == "done":
        return "the job is done"
    if record.state in ("streaming", "broken"):
        return "its output already reached the client: a job is not re-run once it has"
    if not record.idempotent and record.state in ("sent", "lost"):
        return "it is not idempotent and was already sent to a node: never re-run"
    if record.attempts >= max_attempts:
        return f"all {record.attempts} attempts are spent"
    return ""


def memory_snapshot(records: Iterable[NodeRecord], ledger: MemoryLedger) -> Snapshot:
    """The pool as a process that keeps it in memory sees it: the nodes it knows, the jobs its ledger holds."""
    return Snapshot(sorted(records, key=lambda r: r.node), ledger.active())
