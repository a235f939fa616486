"""A real Celery worker and beat against the real Redis: the nightly schedule fires, a missed run is caught up,
a second concurrent pass is refused by the lock, and a killed worker leaves the index and vault consistent.
Celery, beat and Redis are real; the model is a slow loopback stand-in (see ``slow_model``).

Redis: database 12 and a key prefix unique to this test module; only keys under that prefix are deleted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis

from sentinel.index.db import open_index
from sentinel.maintain.cluster_lock import lock_holder
from sentinel.maintain.schedule import last_run, record_run
from sentinel.settings import ProviderSettings, Settings
from services.worker.celery_app import TASK_NAME, celery_app
from services.worker.trigger import trigger_maintenance
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.servers import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/12"
NOTES = {f"notes/star {i}.md": f"Star {i} is a rotating neutron star." for i in range(1, 7)}
ANSWER_S = 1.5  # how long the stand-in model takes per page: long enough to kill a worker mid-pass


def slow_model(request: RecordedRequest) -> tuple[int, dict[str, Any]]:
    """An OpenAI-compatible endpoint that answers like a model, slowly. The kill must land mid-pass on cue,
    which the real model's speed (several times slower on a busy machine) cannot promise; the real model runs
    the whole pass in test_real_model.py."""
    time.sleep(ANSWER_S)
    title = request.body["messages"][1]["content"].split("Title: ", 1)[1].split("\n", 1)[0]
    content = json.dumps({"summary": f"A note about {title}.", "concepts": ["neutron star"]})
    return 200, {
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 20},
    }


@dataclass
class Stack:
    settings: Settings
    env: dict[str, str]
    logs: Path
    processes: list[subprocess.Popen[bytes]]

    def start(self, *args: str, name: str) -> subprocess.Popen[bytes]:
        log = (self.logs / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "services.worker.celery_app", *args],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        self.processes.append(process)
        return process

    def worker(self, name: str) -> subprocess.Popen[bytes]:
        return self.start(
            "worker",
            "--pool",
            "solo",
            "-n",
            f"{name}-{uuid.uuid4().hex[:6]}@%h",
            "--without-mingle",
            "--without-gossip",
            "--loglevel",
            "INFO",
            name=name,
        )

    def beat(self) -> subprocess.Popen[bytes]:
        return self.start("beat", "--schedule", str(self.logs / "beat-schedule"), "--loglevel", "INFO", name="beat")

    def events(self) -> list[dict[str, Any]]:
        found = []
        for log in sorted(self.logs.glob("*.log")):
            for line in log.read_text(errors="replace").splitlines():
                if line.startswith("{"):
                    try:
                        found.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue
        return found

    def wait_for(
        self, what: Callable[[list[dict[str, Any]]], bool], timeout: float, label: str
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            events = self.events()
            if what(events):
                return events
            time.sleep(0.5)
        tails = {p.name: p.read_text(errors="replace")[-3000:] for p in self.logs.glob("*.log")}
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {label}; logs:\n{tails}")


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Callable[..., Stack]]:
    prefix = f"sentinel-test-{uuid.uuid4().hex[:8]}:"
    made: list[Stack] = []

    def make(files: dict[str, str], extraction: ProviderSettings | None = None, **env: str) -> Stack:
        vault = tmp_path / "vault"
        for rel, text in files.items():
            (vault / rel).parent.mkdir(parents=True, exist_ok=True)
            (vault / rel).write_text(text + "\n", encoding="utf-8")
        (tmp_path / "logs").mkdir()
        values = {
            "SENTINEL_VAULT": str(vault),
            "SENTINEL_INDEX_PATH": str(tmp_path / "index.db"),
            "SENTINEL_REDIS_URL": REDIS_URL,
            "SENTINEL_REDIS_PREFIX": prefix,
            "SENTINEL_MAINTAIN_LOCK_TTL_S": "6",
            **env,
        }
        if extraction is not None:
            values.update(
                {
                    "SENTINEL_EXTRACTION__KIND": extraction.kind,
                    "SENTINEL_EXTRACTION__BASE_URL": extraction.base_url,
                    "SENTINEL_EXTRACTION__MODEL": extraction.model,
                    "SENTINEL_EXTRACTION__NUM_CTX": str(extraction.num_ctx),
                }
            )
        settings = Settings(
            _env_file=None,
            **{  # the same settings the worker derives from that environment
                "vault": vault,
                "index_path": tmp_path / "index.db",
                "redis_url": REDIS_URL,
                "redis_prefix": prefix,
                "maintain_lock_ttl_s": 6,
            },
        )
        made.append(Stack(settings, {**os.environ, **values, "PYTHONPATH": str(ROOT)}, tmp_path / "logs", []))
        return made[-1]

    yield make
    for built in made:
        for process in built.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in built.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(match=f"{prefix}*"):
        client.delete(key)


def _finished(trigger: str) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda events: any(e.get("event") == "finished" and e.get("trigger") == trigger for e in events)


@pytest.mark.timeout(400)
def test_missed_run_is_caught_up_at_start_and_the_nightly_schedule_fires(stack: Callable[..., Stack]) -> None:
    now = datetime.now().astimezone()
    # Due in 40-100 s (a whole minute, far enough ahead that beat is up before it); the pass before was two
    # days ago, so last night's pass was missed (the machine slept).
    at = (now + timedelta(seconds=100)).strftime("%H:%M")
    built = stack({"conversations/chat.md": "user: nothing to analyse here"}, SENTINEL_MAINTAIN_AT=at)
    db = open_index(built.settings)
    record_run(db, now - timedelta(days=2))
    built.worker("w1")
    built.beat()
    events = built.wait_for(_finished("catch-up"), 90, "the catch-up pass")
    caught_up = next(e for e in events if e.get("event") == "finished")
    assert caught_up["request_id"]  # every line of a pass carries its task id
    assert all(e["request_id"] == caught_up["request_id"] for e in events if e.get("event") == "progress")
    assert last_run(db) > now - timedelta(minutes=1)
    built.wait_for(_finished("schedule"), 150, "the scheduled pass at " + at)


@pytest.mark.timeout(300)
def test_catch_up_waits_for_the_model_then_runs_once(stack: Callable[..., Stack]) -> None:
    port = free_port()  # nothing listens here yet: the laptop woke before its model server
    extraction = ProviderSettings(kind="openai", base_url=f"http://127.0.0.1:{port}/v1", model="m", num_ctx=4096)
    built = stack({"notes/star 1.md": NOTES["notes/star 1.md"]}, extraction, SENTINEL_MAINTAIN_AT="03:00",
                  SENTINEL_MAINTAIN_RETRY_S="2")  # fmt: skip
    db = open_index(built.settings)
    missed = datetime.now().astimezone() - timedelta(days=2)
    record_run(db, missed)
    built.worker("w1")
    built.beat()
    built.wait_for(lambda ev: any(e.get("event") == "retry" for e in ev), 120, "a retry after no model answered")
    assert last_run(db) == missed  # a pass that reached no model is not a pass: the night is still missed
    with HttpStub(slow_model, port=port):
        events = built.wait_for(_finished("catch-up"), 150, "the catch-up pass once the model answers")
    finished = [e for e in events if e.get("event") == "finished"]
    assert len(finished) == 1 and finished[0]["report"]["analysed"] == 1
    assert last_run(db) > missed
    assert any(e.get("event") == "unreached" for e in events)


def test_a_new_install_runs_no_unrequested_pass(stack: Callable[..., Stack]) -> None:
    built = stack({"notes/star 1.md": NOTES["notes/star 1.md"]}, SENTINEL_MAINTAIN_AT="03:00")
    built.worker("w1")
    built.beat()
    time.sleep(8)  # beat has started and checked for a missed run
    built.start("call", "sentinel.maintain", "--kwargs", '{"trigger": "schedule"}', name="call")
    events = built.wait_for(lambda ev: any(e.get("event") == "waiting" for e in ev), 90, "the schedule waiting")
    assert not [e for e in events if e.get("event") in ("catch-up", "finished")]
    assert last_run(open_index(built.settings)) is None


def test_one_pass_at_a_time_and_a_killed_worker_leaves_consistent_state(stack: Callable[..., Stack]) -> None:
    with HttpStub(slow_model) as model:
        _one_pass_at_a_time_and_killed(stack, ProviderSettings(kind="openai", base_url=f"{model.url}/v1", model="m"))


def _one_pass_at_a_time_and_killed(stack: Callable[..., Stack], extraction: ProviderSettings) -> None:
    built = stack(NOTES, extraction, SENTINEL_MAINTAIN_AT="03:00")
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
    built.wait_for(_finished("on-demand"), 120, "the resumed pass")
    after = {r["path"]: r for r in db.execute("SELECT * FROM analysis")}
    assert set(after) == set(NOTES)
    assert all(after[path]["analysed_at"] == stamp for path, stamp in before.items())  # not redone
