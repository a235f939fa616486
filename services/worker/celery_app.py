"""The one Celery app: the worker and beat use ``celery_app``; producers (the on-demand trigger and the fan-out
client, ``services.common.tasks``) send its tasks by name on the same broker settings (``on_broker``).

Celery's ``proj/celery.py`` pattern, with the settings passed in rather than read at import: producers (the
API) build it from their own settings; the worker and beat get it from the environment when Celery asks for
``app`` (``celery -A services.worker.celery_app worker --concurrency 1``; exactly one beat:
``celery -A services.worker.celery_app beat --schedule <file>``; a model machine that only analyses pages:
``celery -A services.worker.celery_app worker -Q sentinel.analyse.<model>``; a machine that embeds batches of
an embedding run the API splits: ``celery -A services.worker.celery_app worker -Q sentinel.embed``, see
``services.worker.embed``).

- Nightly at ``maintain_at`` (local time of this machine, or ``TZ``).
- Persistent: when beat starts and the last due moment passed with no completed pass (the machine slept, the
  stack was down), it queues one at once. The last completed pass is recorded in the index itself.
- One pass at a time: the task takes a Redis lock that names its holder; a second one is refused and says who
  holds it. A killed worker's lock lapses by itself (``maintain_lock_ttl_s``).
- On demand: ``services.common.tasks.trigger_maintenance`` (what the API calls).
- One JSON log line per event, with the task id.
"""

from __future__ import annotations

import logging
import os
import socket
from functools import cache
from pathlib import Path
from typing import Any

from celery import Celery
from celery.schedules import crontab
from celery.signals import beat_init, setup_logging

from sentinel.embed.factory import embedder_from_settings
from sentinel.index.db import IndexUnavailable, open_index
from sentinel.logs import configure_logging, request_id
from sentinel.maintain import opportunity
from sentinel.maintain.cluster_lock import PassRunning, maintenance_lock
from sentinel.maintain.lock import PassBusy
from sentinel.maintain.models import models_from_settings
from sentinel.maintain.run import run_pass
from sentinel.maintain.schedule import NOT_STARTED, missed_run, parse_at, schedule_started
from sentinel.settings import Settings
from sentinel_pool.chat_first import RedisServingRecord
from services.common.tasks import IDLE_TASK, TASK_NAME, on_broker, with_results
from services.worker import embed, fanout

IDLE_CHECK_S = 60.0  # how often beat asks whether the machine is free for an unscheduled pass
UNREQUESTED = ("schedule", "catch-up")  # passes nobody asked for just now: wait for a first chat, retry
RETRY_CAP_S = 3600.0
log = logging.getLogger("sentinel.worker")


class SentinelCelery(Celery):
    """A Celery app that carries the settings its tasks run with (``task.app.settings``)."""

    settings: Settings


def local_zone() -> str:
    """The zone ``maintain_at`` is read in: ``TZ`` if set, else the machine's /etc/localtime, else UTC."""
    if os.environ.get("TZ"):
        return os.environ["TZ"].lstrip(":")
    target = str(Path("/etc/localtime").resolve())
    return target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else "UTC"


def celery_app(settings: Settings) -> SentinelCelery:
    """The app on ``settings``' broker and key prefix, with the nightly schedule and every Sentinel task."""
    at = parse_at(settings.maintain_at)
    app = with_results(on_broker(settings, SentinelCelery), settings)
    app.settings = settings
    app.conf.update(
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
    if settings.maintain_idle_minutes > 0:
        app.conf.beat_schedule["opportunistic-maintenance"] = {"task": IDLE_TASK, "schedule": IDLE_CHECK_S}
    # shared=False: a task belongs to the app it was registered on, never to every app built in the process
    app.task(name=TASK_NAME, bind=True, shared=False)(maintain)
    app.task(name=IDLE_TASK, bind=True, shared=False)(maintain_if_idle)
    fanout.register(app, settings)
    embed.register(app, settings)
    return app


@cache
def _from_environment() -> SentinelCelery:
    # The worker's and beat's one door to configuration: the settings are read here, once, and passed down.
    return celery_app(Settings())


def __getattr__(name: str) -> Any:
    """``app`` for the ``celery`` command: built from the environment when Celery asks, never at import."""
    if name == "app":
        return _from_environment()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@setup_logging.connect
def _json_logs(**_: Any) -> None:
    configure_logging("worker")


@beat_init.connect
def _catch_up(sender: Any = None, **_: Any) -> None:
    """A pass missed while the machine slept runs now, not tomorrow night."""
    app: SentinelCelery = sender.app
    try:
        db = open_index(app.settings)
        missed = missed_run(db, parse_at(app.settings.maintain_at))
        db.close()
    except IndexUnavailable as error:
        log.warning("cannot read the last run from the index (%s); queuing a pass to be safe", error)
        missed = True
    if missed:
        result = app.send_task(TASK_NAME, kwargs={"trigger": "catch-up"})
        log.info("the last nightly pass was missed; queued one now", extra={"event": "catch-up", "task": result.id})


def maintain_if_idle(task: Any) -> dict[str, object]:
    """Beat's minute check: queue a pass when ``opportunity.chance`` says the machine is free for one."""
    settings: Settings = task.app.settings
    db = open_index(settings)
    try:
        moment = opportunity.chance(settings, db, RedisServingRecord(settings))
    finally:
        db.close()
    if not moment.go:
        log.debug(moment.reason, extra={"event": "not-idle"})
        return {"status": "not now", "reason": moment.reason}
    result = task.app.send_task(TASK_NAME, kwargs={"trigger": "idle"})
    log.info(f"queued a pass: {moment.reason}", extra={"event": "idle-pass", "task": result.id})
    return {"status": "queued", "reason": moment.reason}


def maintain(task: Any, trigger: str = "on-demand", minutes: float | None = None) -> dict[str, object]:
    """The task: the same pass as ``sentinel maintain``, under the cluster-wide lock."""
    settings: Settings = task.app.settings
    task_id = task.request.id or ""
    request_id.set(task_id)
    holder = f"{task.request.hostname or socket.gethostname()} pid {os.getpid()} task {task_id}"
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
                    serving=RedisServingRecord(settings),
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
            wait = min(settings.maintain_retry_s * 2**task.request.retries, RETRY_CAP_S)
            log.info(f"trying the pass again in {wait:.0f}s", extra={"event": "retry", "trigger": trigger})
            raise task.retry(countdown=wait, max_retries=None)
        return {"status": "unreached", **result}
    log.info("maintenance pass finished", extra={"event": "finished", "trigger": trigger, "report": result})
    return {"status": "finished", **result}
