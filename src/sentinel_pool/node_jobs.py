"""The jobs a daemon runs on its own machine, fenced by epoch, kept until the client has the result.

An assignment carries the leader's term and the job's epoch. The daemon refuses it (``Fenced``) when the term is
older than the newest it has seen (a stale or partitioned leader), when the epoch is not newer than the one it
already holds for that job, or when the leader has asked about that epoch before the assignment arrived
(``fence``: an assignment that waited in the socket of a frozen daemon is refused when it wakes, since the
leader may have sent the job elsewhere meanwhile): only the latest assignment runs, once. A finished result
stays here until the client acknowledges it (the leader passes the acknowledgement on) or ``retention_s`` has
passed, so a leader that dies before the client fetched it loses nothing: the next leader learns of the job from
this daemon's registration and collects it again.

Shell jobs run only when their command (the first word) is on the daemon's allow-list; never through a shell.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

JobKind = Literal["inference", "shell"]
Runner = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class Fenced(Exception):
    """An assignment this daemon must not run; the message says which rule refused it."""


class NotAllowed(Exception):
    """A shell command that is not on this daemon's allow-list."""


@dataclass
class LocalJob:
    job: str
    kind: JobKind
    epoch: int
    term: int
    state: str = "running"  # running -> done | failed
    result: dict[str, Any] | None = None
    error: str = ""
    started: float = field(default_factory=time.time)
    idempotent: bool = True
    finished: float = 0.0  # monotonic; 0 while running

    def report(self) -> dict[str, Any]:
        """What a registration tells the leader (no payload: the leader cannot re-run it from this)."""
        return {
            "job": self.job,
            "kind": self.kind,
            "epoch": self.epoch,
            "state": self.state,
            "idempotent": self.idempotent,
        }

    def poll(self) -> dict[str, Any]:
        return self.report() | {"result": self.result, "error": self.error}


class NodeJobs:
    def __init__(self, infer: Runner, allowed_commands: list[str], retention_s: float = 3600.0) -> None:
        self._infer, self._allowed, self.retention_s = infer, set(allowed_commands), retention_s
        self.jobs: dict[str, LocalJob] = {}
        self._fences: dict[str, tuple[int, float]] = {}  # job -> (highest epoch asked about and not held, when)
        self.term = 0  # the newest leader term seen (in an assignment, or heard of by the daemon)
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, job: str, kind: JobKind, epoch: int, term: int, payload: dict[str, Any], idempotent: bool) -> None:
        """Run an assignment, unless fenced (``Fenced``) or a command not allowed (``NotAllowed``)."""
        if term < self.term:
            raise Fenced(f"term {term} is older than term {self.term} this daemon already took work from")
        held = self.jobs.get(job)
        if held is not None and epoch <= held.epoch:
            raise Fenced(f"job {job} runs here at epoch {held.epoch}; epoch {epoch} is not newer")
        fenced = self._fences.get(job, (0, 0.0))[0]
        if epoch <= fenced:
            raise Fenced(
                f"job {job} epoch {epoch} arrived after the leader asked about epoch {fenced} and was told it was "
                "not here: the leader may have sent it elsewhere"
            )
        if kind == "shell":
            argv = payload.get("argv")
            if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
                raise NotAllowed("a shell job needs 'argv': a non-empty list of strings")
            if argv[0] not in self._allowed:
                raise NotAllowed(f"command {argv[0]!r} is not on this daemon's allow-list (--allow)")
        self.term = term
        local = LocalJob(job, kind, epoch, term, idempotent=idempotent)
        self.jobs[job] = local
        task = asyncio.get_running_loop().create_task(self._run(local, payload))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, local: LocalJob, payload: dict[str, Any]) -> None:
        try:
            result = await (self._infer(payload) if local.kind == "inference" else _shell(payload["argv"]))
        except Exception as error:  # the job's failure is its result, recorded: never a crash of the daemon
            if self.jobs.get(local.job) is local:
                local.state, local.error = "failed", f"{type(error).__name__}: {error}"
                local.finished = time.monotonic()
            return
        if self.jobs.get(local.job) is local:  # not superseded by a newer epoch meanwhile
            local.state, local.result, local.finished = "done", result, time.monotonic()

    def ask(self, job: str, epoch: int) -> LocalJob | None:
        """The leader asks about ``job`` at ``epoch``: the job held (at whatever epoch), or None, and then that
        epoch and older ones are refused from now on (``start``): "not here" stays true."""
        self._expire()
        held = self.jobs.get(job)
        if held is not None and held.epoch >= epoch:
            return held
        previous = self._fences.get(job, (0, 0.0))[0]
        self._fences[job] = (max(previous, epoch), time.monotonic())
        return None

    def _expire(self) -> None:
        """Results kept past ``retention_s`` and fences as old are dropped: nobody came for them."""
        now = time.monotonic()
        for name, held in list(self.jobs.items()):
            if held.finished and now - held.finished > self.retention_s:
                del self.jobs[name]
        for name, (_, since) in list(self._fences.items()):
            if now - since > self.retention_s:
                del self._fences[name]

    def acknowledged(self, job: str, epoch: int) -> bool:
        """The client has the result of ``epoch`` (the leader says so): forget it (an older epoch's ack changes
        nothing)."""
        held = self.jobs.get(job)
        if held is None or held.epoch != epoch:
            return False
        del self.jobs[job]
        return True

    def reports(self) -> list[dict[str, Any]]:
        self._expire()
        return [job.report() for job in self.jobs.values()]


async def _shell(argv: list[str]) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    return {
        "returncode": process.returncode,
        "stdout": out.decode(errors="replace"),
        "stderr": err.decode(errors="replace"),
    }
