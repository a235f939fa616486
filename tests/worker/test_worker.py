"""A real Celery worker and beat against the real Redis: the nightly schedule fires, a missed run is caught up,
a second concurrent pass is refused by the lock, and a killed worker leaves the index and vault consistent.
Celery, beat and Redis are real; the model is a slow loopback stand-in (see ``slow_model``).

Redis: database 12 and a key prefix unique to each test (tests/support/worker_stack.py); only keys under that
prefix are deleted.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from sentinel.index.db import open_index
from sentinel.maintain.cluster_lock import lock_holder
from sentinel.maintain.schedule import last_run, record_run
from sentinel.settings import ProviderSettings
from services.common.tasks import TASK_NAME, trigger_maintenance
from services.worker.celery_app import celery_app
from tests.support.http_stub import HttpStub
from tests.support.servers import free_port
from tests.support.worker_stack import NOTES, WorkerStack, pass_finished, slow_model

pytestmark = pytest.mark.slow


@pytest.mark.timeout(400)
def test_missed_run_is_caught_up_at_start_and_the_nightly_schedule_fires(
    worker_stack: Callable[..., WorkerStack],
) -> None:
    now = datetime.now().astimezone()
    # Due in 40-100 s (a whole minute, far enough ahead that beat is up before it); the pass before was two
    # days ago, so last night's pass was missed (the machine slept).
    at = (now + timedelta(seconds=100)).strftime("%H:%M")
    built = worker_stack({"conversations/chat.md": "user: nothing to analyse here"}, SENTINEL_MAINTAIN_AT=at)
    db = open_index(built.settings)
    record_run(db, now - timedelta(days=2))
    built.worker("w1")
    built.beat()
    events = built.wait_for(pass_finished("catch-up"), 90, "the catch-up pass")
    caught_up = next(e for e in events if e.get("event") == "finished")
    assert caught_up["request_id"]  # every line of a pass carries its task id
    assert all(e["request_id"] == caught_up["request_id"] for e in events if e.get("event") == "progress")
    assert last_run(db) > now - timedelta(minutes=1)
    built.wait_for(pass_finished("schedule"), 150, "the scheduled pass at " + at)


@pytest.mark.timeout(300)
def test_catch_up_waits_for_the_model_then_runs_once(worker_stack: Callable[..., WorkerStack]) -> None:
    port = free_port()  # nothing listens here yet: the laptop woke before its model server
    extraction = ProviderSettings(kind="openai", base_url=f"http://127.0.0.1:{port}/v1", model="m", num_ctx=4096)
    built = worker_stack({"notes/star 1.md": NOTES["notes/star 1.md"]}, extraction, SENTINEL_MAINTAIN_AT="03:00",
                  SENTINEL_MAINTAIN_RETRY_S="2")  # fmt: skip
    db = open_index(built.settings)
    missed = datetime.now().astimezone() - timedelta(days=2)
    record_run(db, missed)
    built.worker("w1")
    built.beat()
    built.wait_for(lambda ev: any(e.get("event") == "retry" for e in ev), 120, "a retry after no model answered")
    assert last_run(db) == missed  # a pass that reached no model is not a pass: the night is still missed
    with HttpStub(slow_model, port=port):
        events = built.wait_for(pass_finished("catch-up"), 150, "the catch-up pass once the model answers")
    finished = [e for e in events if e.get("event") == "finished"]
    assert len(finished) == 1 and finished[0]["report"]["analysed"] == 1
    assert last_run(db) > missed
    assert any(e.get("event") == "unreached" for e in events)


def test_a_new_install_runs_no_unrequested_pass(worker_stack: Callable[..., WorkerStack]) -> None:
    built = worker_stack({"notes/star 1.md": NOTES["notes/star 1.md"]}, SENTINEL_MAINTAIN_AT="03:00")
    built.worker("w1")
    built.beat()
    time.sleep(8)  # beat has started and checked for a missed run
    built.start("call", "sentinel.maintain", "--kwargs", '{"trigger": "schedule"}', name="call")
    events = built.wait_for(lambda ev: any(e.get("event") == "waiting" for e in ev), 90, "the schedule waiting")
    assert not [e for e in events if e.get("event") in ("catch-up", "finished")]
    assert last_run(open_index(built.settings)) is None


def test_one_pass_at_a_time_and_a_killed_worker_leaves_consistent_state(
    worker_stack: Callable[..., WorkerStack],
) -> None:
    with HttpStub(slow_model) as model:
        _one_pass_at_a_time_and_killed(
            worker_stack, ProviderSettings(kind="openai", base_url=f"{model.url}/v1", model="m")
        )


def _one_pass_at_a_time_and_killed(worker_stack: Callable[..., WorkerStack], extraction: ProviderSettings) -> None:
    built = worker_stack(NOTES, extraction, SENTINEL_MAINTAIN_AT="03:00")
    first = built.worker("w1")
    second = built.worker("w2")
    # the producer's app: the one app, built on this test's settings (the workers build it from their env)
    queued = trigger_maintenance(built.settings)
    assert queued["queued"] is True
    built.wait_for(lambda ev: any("[2/6]" in str(e.get("message")) for e in ev), 120, "two analysed pages")
    running = lock_holder(built.settings)
    assert running is not None and running.task_id == queued["task_id"]
    # The trigger says a pass runs; a task sent anyway is refused by the lock on the other worker.
    assert trigger_maintenance(built.settings) == {"queued": False, "running": running.as_dict()}
    celery_app(built.settings).send_task(TASK_NAME, kwargs={"trigger": "second"})
    events = built.wait_for(
        lambda ev: any(e.get("event") == "refused" and e.get("trigger") == "second" for e in ev), 120, "refusal"
    )
    refusal = next(e for e in events if e.get("event") == "refused")
    assert refusal["running"]["task_id"] == queued["task_id"]
    # Kill the worker that runs the pass, mid-pass.
    holder_pid = int(running.holder.split(" pid ")[1].split()[0])
    victim = first if first.pid == holder_pid else second
    assert victim.pid == holder_pid
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    db = open_index(built.settings)
    rows = db.execute("SELECT path, status, summary, reason, analysed_at FROM analysis").fetchall()
    assert 1 <= len(rows) < len(NOTES)
    for row in rows:  # never marked analysed without its outputs
        assert (row["status"] == "ok" and row["summary"].strip()) or (row["status"] == "failed" and row["reason"])
    assert not [p for p in built.settings.vault.rglob("*") if p.is_file() and p.suffix != ".md"]
    # The lock lapses on its own; the next pass resumes where the killed one stopped.
    deadline = time.monotonic() + 30
    while lock_holder(built.settings) is not None:
        assert time.monotonic() < deadline, "the dead worker's lock did not lapse"
        time.sleep(0.5)
    before = {r["path"]: r["analysed_at"] for r in rows}
    assert trigger_maintenance(built.settings)["queued"] is True
    built.wait_for(pass_finished("on-demand"), 120, "the resumed pass")
    after = {r["path"]: r for r in db.execute("SELECT * FROM analysis")}
    assert set(after) == set(NOTES)
    assert all(after[path]["analysed_at"] == stamp for path, stamp in before.items())  # not redone
