"""A real Celery worker and beat on the local Redis (a plugin of the root conftest: the worker and the safety
tests): ``worker_stack(files, extraction, **env)`` writes a vault and starts processes on demand; every process
it started is stopped afterwards and only the keys under its own prefix are deleted (Redis database 12).
The model is a slow loopback stand-in (see ``slow_model``)."""

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
from pathlib import Path
from typing import Any

import pytest
import redis

from sentinel.settings import ProviderSettings, Settings
from tests.support.http_stub import RecordedRequest

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
class WorkerStack:
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
def worker_stack(tmp_path: Path) -> Iterator[Callable[..., WorkerStack]]:
    prefix = f"sentinel-test-{uuid.uuid4().hex[:8]}:"
    made: list[WorkerStack] = []

    def make(files: dict[str, str], extraction: ProviderSettings | None = None, **env: str) -> WorkerStack:
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
        # this checkout's code first (a worktree's, not what the venv's editable install points at)
        path = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
        made.append(WorkerStack(settings, {**os.environ, **values, "PYTHONPATH": path}, tmp_path / "logs", []))
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


def pass_finished(trigger: str) -> Callable[[list[dict[str, Any]]], bool]:
    """Whether the logged events hold a finished pass of that trigger (catch-up, schedule, on-demand)."""
    return lambda events: any(e.get("event") == "finished" and e.get("trigger") == trigger for e in events)
