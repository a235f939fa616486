"""An embedding run split across Celery workers, with the API as the index's one writer.

``POST /v1/embed`` plans the run (``sentinel.search.embed_jobs.SplitRun``: the same start and the same batches as
``sentinel embed``), sends the batches to the ``sentinel.embed`` queue a window ahead, and stores the vectors the
workers send back, in batch order, through the API's writer connection under its write lock. The watcher's edits
interleave between batches; its start-up backlog waits, as the run covers it. ``GET /v1/embed`` says how far it
is. One run at a time: a second POST while one runs is a conflict (409); no worker on the queue, or no embedder
in the API (which names the model the index records), is 503 naming the fix.

A batch whose worker died is redelivered by Redis (``task_redeliver_s``, the task is ``acks_late``) and the run
waits for it; a run whose next batch comes back from no worker within ``task_redeliver_s`` + ``STALL_S`` fails,
saying which batch, and leaves every stored batch stored: a new run embeds only what is still missing. A run is
the API process's: if the API restarts, its queued batches run for nothing and a new POST starts over from what
was stored.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from celery import Celery
from celery.exceptions import TimeoutError as ResultTimeout
from celery.result import AsyncResult
from fastapi import APIRouter, Request
from kombu.exceptions import KombuError
from redis.exceptions import RedisError

from sentinel.embed.base import EmbedderUnavailable
from sentinel.errors import Conflict, SentinelError
from sentinel.search.embed_jobs import SplitRun, unpack
from sentinel.search.embedding import EmbedCounts
from sentinel.tools.context import ToolContext
from services.api.deps import CallerScope
from services.common.auth import require_write
from services.common.tasks import EMBED, EMBED_QUEUE, describe_batch, embedding_workers, on_broker, with_results

AHEAD = 32  # batches sent before the next one is stored: keeps 16 one-batch workers busy, ~2 MB of text in Redis
STALL_S = 300.0  # past the redelivery time, how long a batch may take before the run says no worker is taking it
log = logging.getLogger("sentinel.api.embed")
router = APIRouter()


class RunGoing(Conflict, RuntimeError):
    """An embedding run is going already."""


@dataclass
class Run:
    id: str
    split: SplitRun
    workers: list[str]  # those taking batches when it started
    state: str = "running"  # running, finished, failed
    error: str = ""
    taken_by: Counter[str] = field(default_factory=Counter)  # batches each worker embedded
    providers_by_worker: dict[str, list[str]] = field(default_factory=dict)  # where each embedded (CUDA or CPU)
    counts: EmbedCounts | None = None
    started: float = field(default_factory=time.time)
    ended: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "run": self.id,
            **self.split.progress(),
            "workers": self.workers,
            "batches_by_worker": dict(self.taken_by),
            "providers_by_worker": dict(self.providers_by_worker),
            "seconds": round((self.ended or time.time()) - self.started, 1),
            "error": self.error,
            "counts": self.counts.as_dict() if self.counts else None,
        }


class EmbedRuns:
    """The API's one run at a time, and the last one's outcome."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self._lock = threading.Lock()
        self._run: Run | None = None

    def start(self, reembed: bool = False) -> dict[str, Any]:
        with self._lock:
            if self._run is not None and self._run.state == "running":
                progress = self._run.split.progress()["batches"]
                raise RunGoing(f"an embedding run is going ({self._run.id}, batch {progress['done']} of "  # type: ignore[index]
                               f"{progress['total']}): follow it with GET /v1/embed")  # type: ignore[index]  # fmt: skip
            if self.ctx.embedder is None:
                raise EmbedderUnavailable(
                    "the API has no embedder, and the index records which model its vectors are from: set "
                    "SENTINEL_EMBEDDER_URL or SENTINEL_EMBED_MODEL_DIR for the API"
                )
            identity = self.ctx.embedder.identity
            workers = embedding_workers(self.ctx.settings)
            with self.ctx.write_lock:
                split = SplitRun.plan(self.ctx.writer(), identity, reembed=reembed)
            run = Run(uuid.uuid4().hex[:12], split, workers)
            self._run = run
            self.ctx.backlog_elsewhere.set()  # the run covers the watcher's start-up backlog
            threading.Thread(target=self._collect, args=(run,), name=f"embed-{run.id}", daemon=True).start()
        log.info("embedding run started", extra={"event": "embed-start", "run": run.id,
                                                 "batches": len(split.batches), "workers": workers})  # fmt: skip
        return run.as_dict()

    def status(self) -> dict[str, Any]:
        run = self._run
        return {"state": "idle"} if run is None else run.as_dict()

    def _collect(self, run: Run) -> None:
        settings = self.ctx.settings
        app = with_results(on_broker(settings, Celery), settings)
        batches, sent = run.split.batches, {}
        try:
            with app.connection_for_write() as connection:

                def send(number: int) -> None:
                    passages = batches[number].passages
                    sent[number] = app.send_task(
                        EMBED, args=(run.id, number, passages), queue=EMBED_QUEUE, connection=connection,
                        argsrepr=describe_batch(run.id, number, passages), kwargsrepr="{}",
                    )  # fmt: skip

                for number in range(min(AHEAD, len(batches))):
                    send(number)
                for number in range(len(batches)):
                    self._store(run, number, sent.pop(number), settings.task_redeliver_s + STALL_S)
                    if number + AHEAD < len(batches):
                        send(number + AHEAD)
            with self.ctx.write_lock:
                run.counts = run.split.end(self.ctx.writer())
            run.state = "finished"
            log.info("embedding run finished", extra={"event": "embed-finished", "run": run.id,
                                                      "counts": run.counts.as_dict()})  # fmt: skip
        except Exception as error:  # whatever ended it, the run says so on GET; what was stored stays
            run.state, run.error = "failed", _reason(error, run)
            log.error(f"embedding run failed: {run.error}", extra={"event": "embed-failed", "run": run.id})
            if sent:  # the batches still queued would be embedded for nothing
                try:
                    app.control.revoke([result.id for result in sent.values()])
                except (OSError, KombuError, RedisError) as unreachable:
                    log.warning(f"the queued batches stay queued: {unreachable}", extra={"event": "embed-revoke"})
        finally:
            run.ended = time.time()
            self.ctx.backlog_elsewhere.clear()
            app.close()

    def _store(self, run: Run, number: int, result: AsyncResult, wait_s: float) -> None:
        answer = result.get(timeout=wait_s)
        embedding, made_by = unpack(answer)
        with self.ctx.write_lock:
            run.split.store(self.ctx.writer(), number, embedding, made_by)
        worker = str(answer.get("worker", ""))
        run.taken_by[worker] += 1
        run.providers_by_worker[worker] = list(answer.get("providers") or [])  # absent from an older worker
        result.forget()  # the vectors are in the index now; Redis need not keep them an hour


def _reason(error: Exception, run: Run) -> str:
    if isinstance(error, SentinelError):
        return str(error)
    if isinstance(error, ResultTimeout):
        return (f"no worker embedded batch {run.split.stored} in time: are the embedding workers still up? "
                "start some with `make embed workers=N`; what was stored stays, a new run does the rest")  # fmt: skip
    return f"{type(error).__name__}: {error}"


def runs_of(request: Request) -> EmbedRuns:
    runs: EmbedRuns = request.app.state.embed_runs
    return runs


@router.post("/v1/embed", status_code=202)
def start_embedding(request: Request, scope: CallerScope, reembed: bool = False) -> dict[str, Any]:
    """Start an embedding run split across the workers on the ``sentinel.embed`` queue; 202: started, not done."""
    require_write(scope, "embed")
    return runs_of(request).start(reembed)


@router.get("/v1/embed")
def embedding_progress(request: Request, _: CallerScope) -> dict[str, Any]:
    """The current or last run: batches stored of all, page-level vectors and chunks, the workers that took them
    and the ONNX Runtime providers each embedded on (CUDA or CPU)."""
    return runs_of(request).status()
