"""The jobs a daemon runs on its own machine, fenced by epoch, kept until the leader acknowledges them.

An assignment carries the leader's term and the job's epoch. The daemon refuses it (``Fenced``) when the term is
older than the newest it has seen (a stale or partitioned leader) or when the epoch is not newer than the one it
already holds for that job: only the latest assignment runs, once. A finished result stays here until the leader
acknowledges it, so a leader that dies between "done" and storing it loses nothing: the next leader learns of
the job from this daemon's registration and collects it.

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
    def __init__(self, infer: Runner, allowed_commands: list[str]) -> None:
        self._infer, self._allowed = infer, set(allowed_commands)
        self.jobs: dict[str, LocalJob] = {}
        self.term = 0  # the newest leader term seen (in an assignment, or heard of by the daemon)
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, job: str, kind: JobKind, epoch: int, term: int, payload: dict[str, Any], idempotent: bool) -> None:
        """Run an assignment, unless fenced (``Fenced``) or a command not allowed (``NotAllowed``)."""
        if term < self.term:
            raise Fenced(f"term {term} is older than term {self.term} this daemon already took work from")
        held = self.jobs.get(job)
        if held is not None and epoch <= held.epoch:
            raise Fenced(f"job {job} runs here at epoch {held.epoch}; epoch {epoch} is not newer")
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
            return
        if self.jobs.get(local.job) is local:  # not superseded by a newer epoch meanwhile
            local.state, local.result = "done", result

    def acknowledged(self, job: str, epoch: int) -> bool:
        """The leader stored the result of ``epoch``: forget it (an older epoch's ack changes nothing)."""
        held = self.jobs.get(job)
        if held is None or held.epoch != epoch:
            return False
        del self.jobs[job]
        return True

    def reports(self) -> list[dict[str, Any]]:
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
