"""The page-analysis jobs of a fanned-out maintenance pass, as tasks on the one Celery app (``celery_app``).

- ``sentinel_pool.analyse_page`` runs on any worker that consumes ``sentinel.analyse.<model>``. Every worker
  consumes the queue of the extraction model its settings name (added when it starts); on a model machine run
  one with that queue only: ``celery -A services.worker.celery_app worker -Q sentinel.analyse.<model>``.
- ``sentinel_pool.store_analysis`` runs on Celery's default queue, i.e. on the worker next to the vault and its
  index, which stores each result if its epoch is still current (see ``sentinel.maintain.fanout``).
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup

from sentinel.index.db import open_index
from sentinel.maintain.fanout import AnalysisJob, AnalysisResult, analyse_job, queue_for, store_result
from sentinel.maintain.models import models_from_settings
from sentinel.providers import ProviderUnavailable
from sentinel.settings import Settings
from sentinel_pool.fanout import with_ledger
from sentinel_pool.jobs import Assignment, NotReassignable
from services.common.tasks import ANALYSE, STORE

log = logging.getLogger("sentinel.worker.fanout")


def register(app: Celery, settings: Settings) -> None:
    """Add the two fan-out tasks to ``app`` (what ``celery_app`` builds)."""
    app.task(  # shared=False: as for the maintenance task (celery_app)
        name=ANALYSE,
        shared=False,
        bind=True,
        acks_late=True,  # a worker that dies mid-page leaves the job to be redelivered, not lost
        autoretry_for=(ProviderUnavailable,),
        max_retries=settings.pool.attempts - 1,
        retry_backoff=True,
    )(analyse_page)
    app.task(name=STORE, bind=True, shared=False)(store_analysis)


@celeryd_after_setup.connect
def _consume_the_models_queue(sender: Any, instance: Any, **_: Any) -> None:
    """A worker whose settings name an extraction model takes that model's analysis jobs too."""
    model = instance.app.settings.extraction.model.strip()
    if model:
        instance.app.amqp.queues.select_add(queue_for(model))


def analyse_page(task: Any, job: dict[str, Any]) -> dict[str, Any] | None:
    """Analyse one page with this worker's extraction model, under a new epoch of the job."""
    settings: Settings = task.app.settings
    parsed = AnalysisJob.model_validate(job)
    worker, queue = task.request.hostname or "worker", queue_for(settings.extraction.model.strip())
    try:
        claim = with_ledger(
            settings,
            lambda ledger: ledger.assign(
                parsed.job, worker, queue, owner=task.request.id or "", max_attempts=settings.pool.attempts, send=True
            ),
        )
    except NotReassignable as refused:
        log.warning(str(refused), extra={"event": "not-run", "path": parsed.path})
        return None
    result = analyse_job(parsed, models_from_settings(settings), settings, claim)
    log.info("page analysed", extra={"event": "analysed", "path": parsed.path, "status": result.status,
                                     "epoch": claim.epoch, "seconds": round(result.wall_s, 1)})  # fmt: skip
    return result.model_dump(mode="json")


def store_analysis(task: Any, result: dict[str, Any] | None) -> str:
    """Store a result on the vault's side, unless a newer epoch of the job owns it."""
    if result is None:
        return "nothing to store"
    settings: Settings = task.app.settings
    parsed = AnalysisResult.model_validate(result)
    done = Assignment(parsed.job.job, parsed.epoch, parsed.attempt, parsed.worker, parsed.queue)
    if not with_ledger(settings, lambda ledger: ledger.done(done)):
        log.warning("a stale result was discarded: a newer run of the job owns it",
                    extra={"event": "stale", "path": parsed.job.path, "epoch": parsed.epoch})  # fmt: skip
        return "stale"
    db = open_index(settings)
    try:
        store_result(db, parsed)
    finally:
        db.close()
    return "stored"
