"""Queue the maintenance pass's page analyses as Celery jobs (what ``POST /api/pool/analyses`` calls).

"Accepted" means queued, and the answer says so: a queued job runs when a worker that serves the model takes
it; one lost with the broker (Redis restarted without persistence) is simply still due, and the next pass or
the next call queues it again. The API sends them through the one Celery app (``celery_app``) built on its own
settings. The tasks themselves are in ``services.worker.fanout``.
"""

from __future__ import annotations

from typing import Any

from celery import chain

from sentinel.index.db import open_index
from sentinel.pool.fanout import due_batch, queue_for
from sentinel.settings import Settings
from services.worker.celery_app import celery_app
from services.worker.fanout import ANALYSE, STORE, STORE_QUEUE


class NoExtractionModel(ValueError):
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
    client, queue = celery_app(settings), queue_for(model)
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
