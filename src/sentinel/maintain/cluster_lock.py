"""One maintenance pass at a time across any number of workers: a Redis lock that names its holder.

The lock's value says who holds it and since when (``/api/leader`` shows it). It lapses ``maintain_lock_ttl_s``
after its holder stops renewing it, so a killed worker frees it without anyone cleaning up; a live holder
renews it from a background thread every third of that time.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

import redis
from redis.exceptions import LockError

from sentinel.errors import Conflict
from sentinel.redis_client import redis_bytes_client
from sentinel.settings import Settings

log = logging.getLogger("sentinel.maintain.lock")


@dataclass(frozen=True)
class Holder:
    holder: str  # e.g. "celery@host pid 42 task 7f3a..."
    since: str  # ISO 8601, with the holder's UTC offset
    task_id: str

    def as_dict(self) -> dict[str, str]:
        return {"holder": self.holder, "since": self.since, "task_id": self.task_id}


def lock_key(settings: Settings) -> str:
    return f"{settings.redis_prefix}maintain:lock"


def redis_client(settings: Settings) -> redis.Redis:
    return redis_bytes_client(settings.redis_url, timeout_s=10, connect_timeout_s=5)


def lock_holder(settings: Settings, client: redis.Redis | None = None) -> Holder | None:
    """Who runs the maintenance pass right now, and since when; None when nobody does."""
    raw = (client or redis_client(settings)).get(lock_key(settings))
    if raw is None:
        return None
    try:
        return Holder(**json.loads(raw))
    except (ValueError, TypeError):
        return Holder(holder=raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw), since="", task_id="")


class PassRunning(Conflict, RuntimeError):
    """Another worker holds the maintenance lock."""

    def __init__(self, holder: Holder | None) -> None:
        self.holder = holder
        who = f"{holder.holder} since {holder.since}" if holder else "another worker"
        super().__init__(f"a maintenance pass is already running ({who}); this one was not started")


@contextmanager
def maintenance_lock(settings: Settings, holder: str, task_id: str = "") -> Iterator[Holder]:
    """Hold the cluster-wide maintenance lock for the duration, renewing it; ``PassRunning`` if it is taken."""
    client = redis_client(settings)
    me = Holder(holder=holder, since=datetime.now().astimezone().isoformat(timespec="seconds"), task_id=task_id)
    lock = client.lock(lock_key(settings), timeout=settings.maintain_lock_ttl_s, thread_local=False)
    if not lock.acquire(blocking=False, token=json.dumps(me.as_dict())):
        raise PassRunning(lock_holder(settings, client))
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(settings.maintain_lock_ttl_s / 3):
            try:
                lock.reacquire()
            except (LockError, redis.RedisError) as error:
                log.warning("could not renew the maintenance lock: %s", error)

    renewer = threading.Thread(target=renew, name="maintain-lock-renewal", daemon=True)
    renewer.start()
    try:
        yield me
    finally:
        stop.set()
        renewer.join()
        try:
            lock.release()
        except LockError:
            log.warning("the maintenance lock had lapsed before the pass released it")
