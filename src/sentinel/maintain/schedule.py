"""When the nightly pass is due, whether one was missed while the machine slept, and whether it may run yet.

The last completed pass (one that reached its models) is recorded in the index's ``meta`` table, next to what
it maintained, so the check survives restarts of Redis (which keeps nothing on disk here) and of the scheduler.
A new install runs no unrequested pass: the schedule starts after the first real pass (asked for with
``make maintain`` / ``POST /v1/maintain``) or the first chat, so the first pass never takes the model away
from the user's first questions, nor writes into the vault before they asked anything.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, time, timedelta

from sentinel.index.migrations import transaction

LAST_RUN_KEY = "maintain_last_run"
FIRST_CHAT_KEY = "first_chat"
NOT_STARTED = (
    "no scheduled pass yet: this install has had no chat and no requested pass; run one now with "
    "`make maintain` (or `sentinel maintain`), or it starts by itself after the first chat"
)
_HH_MM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class BadScheduleTime(ValueError):
    """``maintain_at`` is not a time of day."""


def parse_at(value: str) -> time:
    """``"23:00"`` -> 23:00; anything else is refused with what to write instead."""
    match = _HH_MM.match(value.strip())
    if not match:
        raise BadScheduleTime(
            f"maintain_at is {value!r}: write the local time of the nightly pass as HH:MM, e.g. 23:00 "
            "(SENTINEL_MAINTAIN_AT)"
        )
    return time(int(match.group(1)), int(match.group(2)))


def last_slot(at: time, now: datetime) -> datetime:
    """The most recent moment, at or before ``now``, when the nightly pass was due."""
    today = datetime.combine(now.date(), at, tzinfo=now.tzinfo)
    return today if today <= now else today - timedelta(days=1)


def last_run(db: sqlite3.Connection) -> datetime | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (LAST_RUN_KEY,)).fetchone()
    return datetime.fromisoformat(row[0]) if row else None


def record_run(db: sqlite3.Connection, when: datetime | None = None) -> None:
    """Record that a pass completed (a budget stop counts: it did what it could; a killed one does not)."""
    stamp = (when or datetime.now().astimezone()).isoformat()
    with transaction(db):
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (LAST_RUN_KEY, stamp),
        )


def record_first_chat(db: sqlite3.Connection) -> None:
    """Record that the vault has been used in a chat (the first time only): the nightly schedule may start."""
    with transaction(db):
        db.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
            (FIRST_CHAT_KEY, datetime.now().astimezone().isoformat()),
        )


def schedule_started(db: sqlite3.Connection) -> bool:
    """Whether the nightly schedule runs passes yet: after a first real pass or a first chat."""
    found = db.execute("SELECT 1 FROM meta WHERE key IN (?, ?)", (LAST_RUN_KEY, FIRST_CHAT_KEY)).fetchone()
    return found is not None


def missed_run(db: sqlite3.Connection, at: time, now: datetime | None = None) -> bool:
    """True when the last due moment passed with no pass completing after it, after at least one real pass.
    A vault never maintained has missed nothing: a new install waits for its user (see the module's doc)."""
    now = now or datetime.now().astimezone()
    previous = last_run(db)
    return previous is not None and previous < last_slot(at, now)
