"""deploy/worker-health.sh, the worker's health check: a real `celery inspect ping` until one passes, then at most
once a minute with the last good answer standing in between, and a failing ping is a failing check. Run with a
stand-in `celery` on PATH that records each call and answers as told."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "worker-health.sh"


def _check(tmp_path: Path, answers: bool) -> int:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    celery = bin_dir / "celery"
    celery.write_text(f'#!/bin/sh\necho "$*" >> {tmp_path / "calls"}\nexit {0 if answers else 1}\n')
    celery.chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "HOSTNAME": "worker-1",
        "SENTINEL_WORKER_PING_STAMP": str(tmp_path / "stamp"),
    }
    return subprocess.run(["/bin/sh", str(SCRIPT)], env=env, capture_output=True, check=False).returncode


def _calls(tmp_path: Path) -> list[str]:
    path = tmp_path / "calls"
    return path.read_text().splitlines() if path.exists() else []


def test_pings_until_the_first_pass_then_once_a_minute(tmp_path: Path) -> None:
    assert _check(tmp_path, answers=False) == 1  # not up yet: a real ping, failing
    assert _check(tmp_path, answers=False) == 1  # and again, no stamp from a failure
    assert _check(tmp_path, answers=True) == 0
    assert len(_calls(tmp_path)) == 3
    assert _calls(tmp_path)[-1] == "-A services.worker.celery_app inspect ping --timeout 10 -d celery@worker-1"
    assert _check(tmp_path, answers=False) == 0  # within the minute: the last good answer stands, no celery
    assert len(_calls(tmp_path)) == 3


def test_a_stale_answer_is_asked_again_and_a_hung_worker_fails(tmp_path: Path) -> None:
    assert _check(tmp_path, answers=True) == 0
    minute_ago = time.time() - 61
    os.utime(tmp_path / "stamp", (minute_ago, minute_ago))
    assert _check(tmp_path, answers=False) == 1  # the worker stopped answering: the check fails again
    assert len(_calls(tmp_path)) == 2
    assert _check(tmp_path, answers=False) == 1  # and keeps failing (retries in a row make it unhealthy)
