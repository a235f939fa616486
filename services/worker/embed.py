"""The embedding batches of a run the API splits (``sentinel.search.embed_jobs``), as a task on the one Celery app.

A worker takes them when it consumes ``sentinel.embed``
(``celery -A services.worker.celery_app worker -Q sentinel.embed``: ``make embed workers=N`` starts such workers,
compose.embed-lan.yaml one on another machine). It embeds with its own embedder, made by the settings' factory:
the in-process ONNX engine (CUDA first where onnxruntime offers it) after the model's start-up self-check, or
the embedder service. The vectors go back through the result store; the API stores them, the one writer.

- ``acks_late``: a batch is acknowledged only once embedded, so a worker that dies mid-batch leaves it to
  another (``task_redeliver_s``); a batch embedded twice is stored once.
- No vault text in any log: the batch's passages are never the task's shown arguments (the sender sets
  ``argsrepr``: ``services.common.tasks.describe_batch``), and the answer's shown form is cut short (it holds
  vectors, never text).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup

from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.embed.factory import embedder_from_settings
from sentinel.search.embed_jobs import pack
from sentinel.settings import Settings
from services.common.tasks import EMBED, EMBED_QUEUE

log = logging.getLogger("sentinel.worker.embed")
_embedders: dict[int, Embedder] = {}  # per app: one model load per worker process


def register(app: Celery, settings: Settings) -> None:
    """Add the embedding task to ``app`` (what ``celery_app`` builds)."""
    app.task(  # shared=False: as for the maintenance task (celery_app)
        name=EMBED,
        shared=False,
        bind=True,
        acks_late=True,  # a worker that dies mid-batch leaves it to be redelivered, not lost
        reject_on_worker_lost=True,  # a pool child killed mid-batch: its parent puts the batch back at once
        ignore_result=False,  # the result is the vectors the API stores
        resultrepr_maxsize=80,  # the "succeeded" log line shows the start of the vectors' base64 at most
    )(embed_batch)


def embedder_of(app: Celery) -> Embedder:
    """This worker's embedder, made once; raises EmbedderUnavailable naming the fix."""
    key = id(app)
    if key not in _embedders:
        settings: Settings = app.settings
        embedder = embedder_from_settings(settings)
        if embedder is None:
            raise EmbedderUnavailable(
                "this worker has no embedder: set SENTINEL_EMBED_MODEL_DIR (the model in this process) or "
                "SENTINEL_EMBEDDER_URL (the embedder service) for it"
            )
        _embedders[key] = embedder
    return _embedders[key]


@celeryd_after_setup.connect
def _embedder_at_start(sender: Any, instance: Any, **_: Any) -> None:
    """A worker asked to take embedding batches loads its model now (with the self-check), not at the first batch;
    one that cannot stops taking them, so the API's run is refused naming the fix instead of failing later."""
    app = instance.app
    if EMBED_QUEUE not in app.amqp.queues.consume_from:
        return
    try:
        embedder = embedder_of(app)
        identity = embedder.identity
    except EmbedderUnavailable as error:
        log.error(f"not taking embedding batches: {error}", extra={"event": "no-embedder"})
        app.amqp.queues.deselect(EMBED_QUEUE)
        return
    check = getattr(embedder, "self_check", None)
    where = providers_of(embedder)
    said = "" if check is None else f"; self-check worst cosine {check.worst_cosine:.4f} (floor {check.floor})"
    log.info(
        f"taking embedding batches on {where[0]}{said}",
        extra={
            "event": "embedder-ready",
            "model": identity.name,
            "file_hash": identity.file_hash,
            "providers": where,
            "self_check": None if check is None else round(check.worst_cosine, 4),
        },
    )
    if getattr(embedder, "lost_cuda", False):
        log.warning(
            "this worker's onnxruntime offers CUDA but embeds on the CPU: no GPU visible to it, or CUDA/cuDNN "
            "libraries it could not load (install the gpu extra as onnxruntime-gpu[cuda,cudnn]; docs/scale.md)",
            extra={"event": "embedder-no-cuda"},
        )


def providers_of(embedder: Embedder) -> list[str]:
    """Where this worker embeds: the ONNX Runtime providers of its session, or the embedder service it calls."""
    return list(getattr(embedder, "providers", None) or ["embedder service"])


def embed_batch(task: Any, run: str, number: int, passages: list[str]) -> dict[str, Any]:
    """Embed one batch's passages; the vectors, what the model saw of each, and which model made them."""
    embedder = embedder_of(task.app)
    started = time.perf_counter()
    embedding = embedder.embed(passages, "passage")
    seconds = time.perf_counter() - started
    log.info("batch embedded", extra={"event": "embedded", "run": run, "batch": number,
                                      "passages": len(passages), "seconds": round(seconds, 3)})  # fmt: skip
    return {"run": run, "batch": number, "worker": task.request.hostname or "", "providers": providers_of(embedder),
            **pack(embedding, embedder.identity)}  # fmt: skip
