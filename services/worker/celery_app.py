"""Celery app: the maintenance pass as a task, scheduled nightly by beat, one at a time across workers.

Run a worker: ``celery -A services.worker.celery_app worker --concurrency 1``; exactly one beat:
``celery -A services.worker.celery_app beat --schedule <file>``. Settings come from the environment
(``SENTINEL_REDIS_URL``, ``SENTINEL_MAINTAIN_AT``, the model roles ...), as everywhere else.

- Nightly at ``maintain_at`` (local time of this machine, or ``TZ``).
- Persistent: when beat starts and the last due moment passed with no completed pass (the machine slept, the
  stack was down), it queues one at once. The last completed pass is recorded in the index itself.
- One pass at a time: the task takes a Redis lock that names its holder; a second one is refused and says who
  holds it. A killed worker's lock lapses by itself (``maintain_lock_ttl_s``).
- On demand: ``services.worker.trigger.trigger_maintenance`` (what the API calls).
- One JSON log line per event, with the task id.
"""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path
from typing import Any

from celery import Celery
from celery.schedules import crontab
from celery.signals import beat_init, setup_logging

from sentinel.embed.factory import embedder_from_settings
from sentinel.index.db import IndexUnavailable, open_index
from sentinel.logs import configure_logging, request_id
from sentinel.maintain.cluster_lock import PassRunning, maintenance_lock
from sentinel.maintain.lock import PassBusy
from sentinel.maintain.models import models_from_settings
from sentinel.maintain.run import run_pass
from sentinel.maintain.schedule import NOT_STARTED, missed_run, parse_at, schedule_started
from sentinel.settings import Settings

TASK_NAME = "sentinel.maintain"
UNREQUESTED = ("schedule", "catch-up")  # passes nobody asked for just now: wait for a first chat, retry
RETRY_CAP_S = 3600.0
log = logging.getLogger("sentinel.worker")
settings = Settings()
at = parse_at(settings.maintain_at)


def local_zone() -> str:
    """The zone ``maintain_at`` is read in: ``TZ`` if set, else the machine's /etc/localtime, else UTC."""
    if os.environ.get("TZ"):
        return os.environ["TZ"].lstrip(":")
    target = str(Path("/etc/localtime").resolve())
    return target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else "UTC"


app = Celery("sentinel", broker=settings.redis_url, include=["services.worker.fanout"])
app.conf.update(
    broker_transport_options={"global_keyprefix": settings.redis_prefix},
    broker_connection_retry_on_startup=True,
    task_ignore_result=True,
    worker_prefetch_multiplier=1,
    timezone=local_zone(),
    enable_utc=False,
    beat_schedule={
        "nightly-maintenance": {
            "task": TASK_NAME,
            "schedule": crontab(hour=at.hour, minute=at.minute),
            "kwargs": {"trigger": "schedule"},
        }
    },
)


@setup_logging.connect
def _json_logs(**_: Any) -> None:
    configure_logging("worker")


@beat_init.connect
def _catch_up(sender: Any = None, **_: Any) -> None:
    """A pass missed while the machine slept runs now, not tomorrow night."""
    try:
        db = open_index(settings)
        missed = missed_run(db, at)
        db.close()
    except IndexUnavailable as error:
        log.warning("cannot read the last run from the index (%s); queuing a pass to be safe", error)
        missed = True
    if missed:
        result = app.send_task(TASK_NAME, kwargs={"trigger": "catch-up"})
        log.info("the last nightly pass was missed; queued one now", extra={"event": "catch-up", "task": result.id})


# shared=False: the task belongs to this app alone. Celery's default also adds it to every other app that
# finalizes in the process (the API's producer, which only sends by name), once per import of this module.
@app.task(name=TASK_NAME, bind=True, shared=False)
def maintain(self: Any, trigger: str = "on-demand", minutes: float | None = None) -> dict[str, object]:
    """The same pass as ``sentinel maintain``, under the cluster-wide lock."""
    task_id = self.request.id or ""
    request_id.set(task_id)
    holder = f"{self.request.hostname or socket.gethostname()} pid {os.getpid()} task {task_id}"
    log.info("maintenance pass requested", extra={"event": "start", "trigger": trigger})
    try:
        with maintenance_lock(settings, holder, task_id):
            db = open_index(settings)
            try:
                if trigger in UNREQUESTED and not schedule_started(db):
                    log.info(NOT_STARTED, extra={"event": "waiting", "trigger": trigger})
                    return {"status": "waiting", "reason": NOT_STARTED}
                report = run_pass(
                    settings,
                    db,
                    models=lambda: models_from_settings(settings),
                    embedder=lambda: embedder_from_settings(settings),
                    minutes=minutes if minutes is not None else settings.maintain_minutes,
                    say=lambda line: log.info(line.strip(), extra={"event": "progress"}),
                )
            finally:
                db.close()
    except (PassRunning, PassBusy) as busy:
        running = busy.holder.as_dict() if isinstance(busy, PassRunning) and busy.holder else {}
        log.warning(str(busy), extra={"event": "refused", "trigger": trigger, "running": running})
        return {"status": "refused", "reason": str(busy), "running": running}
    result = report.as_dict()
    if report.unreached:
        log.warning(report.unreached, extra={"event": "unreached", "trigger": trigger, "report": result})
        if trigger in UNREQUESTED:  # the laptop woke before its model server: try again until it answers
            wait = min(settings.maintain_retry_s * 2**self.request.retries, RETRY_CAP_S)
            log.info(f"trying the pass again in {wait:.0f}s", extra={"event": "retry", "trigger": trigger})
            raise self.retry(countdown=wait, max_retries=None)
        return {"status": "unreached", **result}
    log.info("maintenance pass finished", extra={"event": "finished", "trigger": trigger, "report": result})
    return {"status": "finished", **result}
