"""What the pool's one router (``dispatch.Gateway``) is wired with: where its jobs' assignments are kept
(``Ledger``: Redis for the API's gateway processes, memory for the daemon leader), how a request reaches a
node (``Via``: straight to its URL, or the leader's signed forward to the node's daemon), and the observer it
reports to when it was given none."""

from __future__ import annotations

from typing import Protocol

from sentinel_pool.jobs import Assignment
from sentinel_pool.routing import Candidate


class Ledger(Protocol):
    """Where a job's assignments and their epochs are kept: ``jobs.JobLedger`` (Redis, shared by gateway
    processes) or ``ledger_memory.MemoryLedger`` (the daemon leader's)."""

    async def assign(
        self, job: str, node: str, url: str, *, owner: str, idempotent: bool, max_attempts: int, send: bool
    ) -> Assignment: ...

    async def streaming(self, a: Assignment) -> None: ...

    async def done(self, a: Assignment) -> bool: ...

    async def failed(self, a: Assignment, *, reached_node: bool) -> bool: ...

    async def broken(self, a: Assignment) -> bool: ...


class Via(Protocol):
    """How a request reaches a backend: ``url`` (the backend's own) becomes the URL and headers it is sent to
    (the daemon leader sends it to the node's daemon, signed). ``body`` is the exact bytes sent."""

    def __call__(self, candidate: Candidate, url: str, body: bytes) -> tuple[str, dict[str, str]]: ...


def direct(candidate: Candidate, url: str, body: bytes) -> tuple[str, dict[str, str]]:
    return url, {"content-type": "application/json"}


class Silent:
    """The observer of a gateway that was given none."""

    def failover(self, model: str, node: str, reason: str) -> None:
        pass

    def first_token(self, model: str, node: str, seconds: float) -> None:
        pass

    def finished(self, endpoint: str, model: str, node: str, outcome: str, seconds: float) -> None:
        pass

    def tool_calls(self, model: str, node: str, outcome: str) -> None:
        pass
