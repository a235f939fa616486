"""The leader's jobs: queue, assign with a new epoch each time, poll the daemon running it, hand the result to
the client, and only then let the node forget it.

Failover by reconstruction: this table lives only in the leader's memory. When a leader dies, every daemon
registers with the next one and reports the jobs it holds, with their epochs (``absorb``); the new leader polls
them to completion. A job absorbed so carries no payload: it can finish but is never re-run empty. A job that
was queued and not yet assigned dies with its leader, which is why ``submit`` answers "queued", not "done".

At most once: an assignment that got no answer in time is ``unknown``, not "never reached" (a frozen node may
have it in its socket and run it when it wakes). Before anything else the leader asks that node about the job
at that epoch; the node answers with the job, or says it does not hold it and from then on refuses that epoch
(``node_jobs.NodeJobs.fence``), so only then may the job go elsewhere. While the node does not answer, a job that
is not idempotent stays ``unknown`` and goes nowhere else; the node's own report settles it when it is back.

Terminal states need evidence: a poll that fails makes a job ``unreachable`` (polled again), never ``done``;
``done`` is only set from the daemon's own answer. The result stays on the node that produced it until the
client acknowledges it (``ack``, which the leader passes on to the node), or for the node's stated retention
time; so a new leader finds a finished result in the node's report. A job whose daemon has left the pool is
re-queued if it is an inference job with a payload and fewer than ``attempts`` assignments; a shell job is never
re-run unless it is marked idempotent, and becomes ``lost`` (its node's later report still settles it).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Any

Send = Callable[[str, str, dict[str, Any] | None], Awaitable[tuple[int, dict[str, Any]]]]  # (url, path, body)
Choose = Callable[["PoolJob", Collection[str]], str | None]  # a live node for the job, not among those tried

TERMINAL = ("done", "failed", "lost")
QUEUED_NOTE = (
    "accepted means queued: a job not yet started when the leader dies is lost, and polling says so. A finished "
    "result is kept on the node that produced it until you acknowledge it (POST /api/jobs/{id}/ack) or for "
    "result_kept_s, across leader changes"
)
UNREACHED, UNKNOWN = 0, -1  # peer_http's: no connection made; sent, and no answer in time
SETTLED_BY_REPORT = ("unknown", "lost")  # the node's own report of the same epoch is the evidence these wait for


@dataclass
class PoolJob:
    job: str
    kind: str
    payload: dict[str, Any] | None
    idempotent: bool
    state: str = "queued"
    node: str = ""
    epoch: int = 0
    attempts: int = 0
    tried: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: str = ""
    absorbed: bool = False
    updated: float = field(default_factory=time.time)

    def view(self) -> dict[str, Any]:
        return {
            "job": self.job,
            "kind": self.kind,
            "state": self.state,
            "node": self.node,
            "epoch": self.epoch,
            "attempts": self.attempts,
            "result": self.result,
            "error": self.error,
            "absorbed": self.absorbed,
        }


class LeaderJobs:
    def __init__(self, term: int, send: Send, choose: Choose, attempts: int = 3) -> None:
        self.term, self._send, self._choose, self._attempts = term, send, choose, attempts
        self.jobs: dict[str, PoolJob] = {}
        self.acked: dict[str, tuple[str, int]] = {}  # job -> (node, epoch): the client has it; the node may forget

    def submit(self, kind: str, payload: dict[str, Any], idempotent: bool) -> PoolJob:
        job = PoolJob(uuid.uuid4().hex, kind, payload, idempotent if kind == "shell" else True)
        self.jobs[job.job] = job
        return job

    def absorb(self, node: str, reports: list[dict[str, Any]]) -> None:
        """A daemon registered with the jobs it holds: take over those this leader does not know yet."""
        for report in reports:
            if report["job"] in self.acked:
                continue  # the client has it: the node is told to forget it (``tick``)
            known = self.jobs.get(report["job"])
            if known is not None and known.epoch == int(report["epoch"]) and known.state in SETTLED_BY_REPORT:
                known.state, known.node, known.error = "running", node, ""  # the node has it: polled next tick
                continue
            if known is not None and known.epoch >= int(report["epoch"]):
                continue
            state = "running" if report["state"] == "running" else "unreachable"  # polled next tick for its result
            self.jobs[report["job"]] = PoolJob(
                report["job"],
                report["kind"],
                None,
                bool(report.get("idempotent", True)),
                state=state,
                node=node,
                epoch=int(report["epoch"]),
                attempts=1,
                tried=[node],
                absorbed=True,
            )

    async def tick(self, live: dict[str, str]) -> None:
        """One round over every job: assign the queued, poll the running, ask about the unknown (``live``: node ->
        daemon URL); tell nodes to forget what clients have acknowledged."""
        for job in list(self.jobs.values()):
            if job.state == "queued":
                await self._assign(job, live)
            elif job.state in ("running", "unreachable", "unknown"):
                await self._poll(job, live)
        for job_id, (node, epoch) in list(self.acked.items()):
            if node in live:
                status, _ = await self._send(live[node], f"/pool/v1/jobs/{job_id}/ack", {"epoch": epoch})
                if status == 200:
                    del self.acked[job_id]

    async def _assign(self, job: PoolJob, live: dict[str, str]) -> None:
        node = self._choose(job, job.tried)
        if node is None or node not in live or job.payload is None:
            return  # nobody can take it now: it stays queued
        job.epoch, job.attempts, job.node = job.epoch + 1, job.attempts + 1, node
        job.tried.append(node)
        body = {"job": job.job, "kind": job.kind, "epoch": job.epoch, "term": self.term, "payload": job.payload}
        status, answer = await self._send(live[node], "/pool/v1/run", body | {"idempotent": job.idempotent})
        if status == 202:
            job.state = "running"
        elif status in (UNREACHED, 503):  # never reached: it may go elsewhere (this does not count as a run)
            job.attempts -= 1
            job.state = "queued"
        elif status == UNKNOWN:  # it may have arrived: the node is asked before the job goes anywhere else
            job.state = "unknown"
            job.error = f"no answer from {node} to the assignment at epoch {job.epoch}; asking it before any re-run"
        else:
            job.state, job.error = "failed", str(answer.get("error", answer))
        job.updated = time.time()

    async def _poll(self, job: PoolJob, live: dict[str, str]) -> None:
        """Ask the job's node about the job at its epoch (the node fences that epoch if it does not hold it)."""
        if job.node not in live:
            if job.state == "unknown" and not self._rerunnable(job):
                job.error = (
                    f"{job.node} went silent after the assignment at epoch {job.epoch}: not run elsewhere while it "
                    "may still run it; its own report settles the job when it is back"
                )
                return
            self._node_gone(job)
            return
        status, answer = await self._send(live[job.node], f"/pool/v1/jobs/{job.job}/{job.epoch}", None)
        if status != 200:
            if status == 404 and job.state == "unknown":  # never arrived, and now it never will: fenced there
                job.attempts -= 1
                job.state, job.error = "queued", ""
            elif status == 404:  # the daemon does not hold it: it restarted, and its result is gone with it
                self._node_gone(job)
            elif job.state != "unknown":
                job.state = "unreachable"
            return
        if int(answer.get("epoch", -1)) != job.epoch:
            return  # another epoch's answer is not this one's evidence
        if answer["state"] == "done":
            job.state, job.result, job.error = "done", answer.get("result"), ""
        elif answer["state"] == "failed":
            job.error = str(answer.get("error"))
            job.state = "queued" if self._rerunnable(job) else "failed"
        else:
            job.state, job.error = "running", ""
        job.updated = time.time()

    def _rerunnable(self, job: PoolJob) -> bool:
        return job.payload is not None and job.idempotent and job.attempts < self._attempts

    def _node_gone(self, job: PoolJob) -> None:
        if self._rerunnable(job):
            job.state = "queued"
            return
        job.state = "lost"
        if job.payload is None:
            job.error = f"node {job.node} left while running it; a job taken over in a failover carries no payload"
        elif not job.idempotent:
            job.error = f"node {job.node} left while running it; not idempotent, so never re-run"
        else:
            job.error = f"node {job.node} left while running it; all {self._attempts} attempts are spent"

    def ack(self, job_id: str) -> bool:
        """The client has the result: forget the job, and tell its node to forget it (next ``tick``)."""
        job = self.jobs.get(job_id)
        if job is None or job.state not in TERMINAL:
            return False
        del self.jobs[job_id]
        if job.node:
            self.acked[job_id] = (job.node, job.epoch)
        return True
