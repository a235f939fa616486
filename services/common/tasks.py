"""The Celery tasks as producers see them: their names, the broker settings every app shares, and the two things
the API queues (a maintenance pass on demand; the pass's page analyses, fanned out). The worker registers the
tasks under these names (``services.worker.celery_app``); a producer sends them by name, so it needs none of the
worker's code.

"Accepted" means queued. A queued analysis runs when a worker that serves the model takes it; one lost with the
broker (Redis restarted without persistence) is simply still due, and the next pass or call queues it again. If a
pass is running already, nothing is queued and the answer says who runs it since when.
"""

from __future__ import annotations

from typing import Any, TypeVar

from celery import Celery, chain

from sentinel.errors import Conflict
from sentinel.index.db import open_index
from sentinel.maintain.cluster_lock import lock_holder
from sentinel.maintain.fanout import due_batch, queue_for
from sentinel.settings import Settings

TASK_NAME = "sentinel.maintain"
IDLE_TASK = "sentinel.maintain_if_idle"
ANALYSE = "sentinel.pool.analyse_page"
STORE = "sentinel.pool.store_analysis"
STORE_QUEUE = "celery"  # Celery's default queue: the worker next to the vault and its index consumes it

App = TypeVar("App", bound=Celery)


def on_broker(settings: Settings, kind: type[App]) -> App:
    """A Celery app of ``kind`` on ``settings``' broker and key prefix: what producers and the worker share."""
    app = kind("sentinel", broker=settings.redis_url, set_as_current=False)
    app.conf.update(
        broker_transport_options={"global_keyprefix": settings.redis_prefix},
        broker_connection_retry_on_startup=True,
        task_ignore_result=True,
    )
    return app


def trigger_maintenance(settings: Settings, minutes: float | None = None) -> dict[str, object]:
    """Queue one pass now. Returns ``{"queued": True, "task_id": ...}`` or, when one runs,
    ``{"queued": False, "running": {"holder", "since", "task_id"}}``."""
    running = lock_holder(settings)
    if running is not None:
        return {"queued": False, "running": running.as_dict()}
    app = on_broker(settings, Celery)
    with app.connection_for_write() as connection:
        result = app.send_task(TASK_NAME, kwargs={"trigger": "on-demand", "minutes": minutes}, connection=connection)
    return {"queued": True, "task_id": result.id}


class NoExtractionModel(Conflict, ValueError):
    """Fan-out needs the extraction model's name: it names the queue that workers serving it consume."""


def queue_analyses(settings: Settings) -> dict[str, Any]:
    """Queue one job per page due in the current phase; each job's result is stored by the vault's worker."""
    model = settings.extraction.model.strip()
    if not model:
        raise NoExtractionModel(
            "no extraction model is configured (SENTINEL_EXTRACTION__MODEL): page analyses are queued per model, "
            "for the workers that serve it"
        )
    db = open_index(settings, readonly=True)
    try:
        batch = due_batch(settings, db)
    finally:
        db.close()
    client, queue = on_broker(settings, Celery), queue_for(model)
    with client.connection_for_write() as connection:
        for job in batch.jobs:
            analyse = client.signature(ANALYSE, args=(job.model_dump(mode="json"),), queue=queue)
            chain(analyse, client.signature(STORE, queue=STORE_QUEUE)).apply_async(connection=connection)
    waiting = f"; {batch.wiki_waiting} wiki pages wait until these are analysed" if batch.wiki_waiting else ""
    return {
        "status": "accepted",
        "accepted_means": "queued, not done: a worker serving the model runs each job when it takes it; a job lost "
        "with the broker stays due and is queued again by the next call or pass",
        "queued": len(batch.jobs),
        "phase": batch.phase,
        "wiki_waiting": batch.wiki_waiting,
        "queue": queue,
        "jobs": [job.job for job in batch.jobs],
        "note": f"queued {len(batch.jobs)} {batch.phase} pages{waiting}",
    }
