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
from kombu.exceptions import KombuError
from redis.exceptions import RedisError

from sentinel.errors import Conflict, Unavailable
from sentinel.index.db import open_index
from sentinel.maintain.cluster_lock import lock_holder
from sentinel.maintain.fanout import due_batch, queue_for
from sentinel.settings import Settings

TASK_NAME = "sentinel.maintain"
IDLE_TASK = "sentinel.maintain_if_idle"
ANALYSE = "sentinel.pool.analyse_page"
STORE = "sentinel.pool.store_analysis"
STORE_QUEUE = "celery"  # Celery's default queue: the worker next to the vault and its index consumes it
EMBED = "sentinel.embed_batch"
EMBED_QUEUE = "sentinel.embed"  # consumed by the workers started for an embedding run (`make embed workers=N`)

RESULT_EXPIRES_S = 3600  # an embedded batch's vectors wait this long in Redis for the API to store them
App = TypeVar("App", bound=Celery)


def on_broker(settings: Settings, kind: type[App]) -> App:
    """A Celery app of ``kind`` on ``settings``' broker and key prefix: what producers and the worker share."""
    app = kind("sentinel", broker=settings.redis_url, set_as_current=False)
    app.conf.update(
        broker_transport_options={
            "global_keyprefix": settings.redis_prefix,
            # a task taken by a worker that died (acks_late) goes back to the queue this long after it was taken,
            # checked every 10 s by any worker (kombu's default checks every 100 s)
            "visibility_timeout": settings.task_redeliver_s,
            "unacked_restore_throttle": 1,
        },
        broker_connection_retry_on_startup=True,
        task_ignore_result=True,
    )
    return app


def with_results(app: App, settings: Settings) -> App:
    """``app`` with Redis as the result store: for the worker, which stores an embedding batch's vectors there,
    and for the API's embedding run, which reads them. Only there: a producer with a result store subscribes to
    the result of everything it sends, and nothing else's result is ever read."""
    app.conf.update(
        result_backend=settings.redis_url,
        result_backend_transport_options={"global_keyprefix": settings.redis_prefix},
        result_expires=RESULT_EXPIRES_S,
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


class NoEmbeddingWorker(Unavailable, RuntimeError):
    """No worker takes embedding batches (none started, or none has a usable embedder), or Redis is down."""


def describe_batch(run: str, number: int, passages: list[str]) -> str:
    """What logs and `celery inspect` show of an embedding batch's arguments (its ``argsrepr``): never its text."""
    return f"(run {run}, batch {number}, {len(passages)} passages)"


def embedding_workers(settings: Settings, timeout_s: float = 2.0) -> list[str]:
    """The workers taking embedding batches now; raises NoEmbeddingWorker naming the fix when there is none."""
    app = on_broker(settings, Celery)
    try:
        replies = app.control.inspect(timeout=timeout_s).active_queues() or {}
    except (OSError, KombuError, RedisError) as error:
        raise NoEmbeddingWorker(f"Redis at {settings.redis_url} cannot be reached ({error}): start the stack with "
                                "`make up`") from error  # fmt: skip
    finally:
        app.close()
    workers = sorted(name for name, queues in replies.items() if any(q.get("name") == EMBED_QUEUE for q in queues))
    if not workers:
        raise NoEmbeddingWorker(
            f"no worker takes embedding batches (queue {EMBED_QUEUE}): start some with `make embed workers=N`, or on "
            f"another machine with compose.embed-lan.yaml (docs/scale.md); a worker without a usable embedder "
            "says why in its log and takes none"
        )
    return workers
