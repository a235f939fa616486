"""The maintenance pass fanned out: each page analysis is a job that any worker with the model can take.

The job ledger that fences executions by epoch is the pool's (``sentinel_pool.fanout.with_ledger``); this module
is the pass's side, and takes a claim as anything with an epoch, an attempt, a node and a queue (``Claim``).

The vault side (the worker or API next to the index) turns due pages into jobs; a worker on any machine that
serves the extraction model analyses one (``analyse_job``: the same ``analyse_page`` the pass runs, with all of
its model-side gates); the result travels back to the vault side, which stores it (``store_result``). Adding a
machine that consumes the model's queue adds throughput. Celery carries the jobs (``services/worker/fanout.py``).

Two things keep the result the same as a sequential pass would give:
- Phases. Non-derived pages are queued first; wiki pages only once none of those is due, so the derived-page
  gate sees every concept of this pass.
- The derived-page gate needs the index, so it runs where the index is: at store time, on the freshest
  knowledge. The worker gates what it can (schema, truncation, verbatim) and sends every verbatim concept.

Each execution of a job claims a new epoch in the job ledger; a result is stored only if its epoch is still
current, so a stale execution (a task redelivered while its first run was still going) cannot overwrite.
Analyses are idempotent, so a job may run up to three times (``pool.attempts``); after that it stays due.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import BaseModel

from sentinel.gates import derived
from sentinel.maintain import analysis, queue
from sentinel.maintain.models import Models
from sentinel.maintain.text import PageText, read_page_text
from sentinel.paths import Role
from sentinel.settings import Settings

Phase = Literal["non-derived", "wiki", "nothing due"]


class AnalysisJob(BaseModel):
    job: str
    path: str
    role: Role
    text: str
    hash: str


class AnalysisResult(BaseModel):
    """What a worker sends back: the page's outcome before the derived-page gate, and the epoch it ran under."""

    job: AnalysisJob
    epoch: int
    attempt: int
    worker: str
    queue: str
    status: Literal["ok", "failed"]
    summary: str = ""
    concepts: list[str] = []
    dropped_not_verbatim: list[str] = []
    reason: str = ""
    model_label: str = ""
    blind: bool = False
    wall_s: float = 0.0


class Claim(Protocol):
    """One execution of a job as the job ledger granted it."""

    @property
    def epoch(self) -> int: ...
    @property
    def attempt(self) -> int: ...
    @property
    def node(self) -> str: ...
    @property
    def url(self) -> str: ...


@dataclass
class Batch:
    phase: Phase
    jobs: list[AnalysisJob] = field(default_factory=list)
    wiki_waiting: int = 0  # wiki pages held back until the non-derived ones are analysed


def queue_for(model: str) -> str:
    """The queue of analysis jobs for ``model``: workers that serve that model consume it."""
    return f"sentinel.analyse.{model}"


def due_batch(settings: Settings, db: sqlite3.Connection) -> Batch:
    """The jobs of the current phase: every due non-derived page, or (when none is due) every due wiki page."""
    due = queue.awaiting_analysis(db)
    first = [item for item in due if item.role is not Role.WIKI]
    wiki = [item for item in due if item.role is Role.WIKI]
    batch = Batch("non-derived" if first else "wiki" if wiki else "nothing due", wiki_waiting=len(wiki) if first else 0)
    for item in first or wiki:
        page = read_page_text(settings.vault, item.path, item.role)
        if page is not None:  # gone since the sync: the next sync drops it
            batch.jobs.append(AnalysisJob(job=uuid.uuid4().hex, path=page.path, role=page.role, text=page.text,
                                          hash=page.hash))  # fmt: skip
    return batch


def analyse_job(job: AnalysisJob, models: Models, settings: Settings, claim: Claim) -> AnalysisResult:
    """Analyse one page on this worker under the epoch ``claim`` (``ProviderUnavailable`` propagates: the job
    is retried). The derived-page gate is left to the store step, so every verbatim concept comes back."""
    page = PageText(job.path, job.role, job.text, job.hash)
    outcome = analysis.analyse_page(page, models, settings, known=set())
    return AnalysisResult(
        job=job,
        epoch=claim.epoch,
        attempt=claim.attempt,
        worker=claim.node,
        queue=claim.url,
        status=outcome.status,
        summary=outcome.summary,
        concepts=outcome.concepts + outcome.dropped_derived,
        dropped_not_verbatim=outcome.dropped_not_verbatim,
        reason=outcome.reason,
        model_label=models.label,
        blind=outcome.blind,
        wall_s=outcome.wall_s,
    )


def store_result(db: sqlite3.Connection, result: AnalysisResult) -> analysis.Outcome:
    """Apply the derived-page gate against the index as it is now and store the outcome in one transaction.
    The caller has checked the epoch (``JobLedger.done``) first."""
    known = derived.known_concepts(db) if result.job.role is Role.WIKI else set()
    allowed = derived.no_new_concepts_from_derived(result.concepts, result.job.role, known)
    outcome = analysis.Outcome(
        path=result.job.path,
        hash=result.job.hash,
        status=result.status,
        summary=result.summary,
        concepts=allowed.kept,
        dropped_not_verbatim=result.dropped_not_verbatim,
        dropped_derived=allowed.dropped,
        reason=result.reason,
        blind=result.blind,
        wall_s=result.wall_s,
    )
    analysis.store(db, outcome, f"{result.model_label} on {result.worker}")
    return outcome
