"""The one Celery app: one function builds it from the settings it is given, for the worker, beat and every
producer; importing it reads no settings (the ``celery`` command gets its app from the environment on demand)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sentinel.settings import Settings
from services.common.tasks import ANALYSE, EMBED, STORE, TASK_NAME
from services.worker.celery_app import celery_app

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}", **env}
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=60)


def test_each_app_carries_its_own_settings_schedule_and_every_task(tmp_path: Path) -> None:
    ours = Settings(vault=tmp_path, redis_url="redis://127.0.0.1:6379/9", redis_prefix="ours:", maintain_at="02:30",
                    task_redeliver_s=300, _env_file=None)  # fmt: skip
    theirs = Settings(vault=tmp_path, redis_prefix="theirs:", _env_file=None)
    app, other = celery_app(ours), celery_app(theirs)
    assert app.settings is ours and other.settings is theirs
    assert app.conf.broker_url == "redis://127.0.0.1:6379/9"
    assert app.conf.broker_transport_options == {
        "global_keyprefix": "ours:",
        "visibility_timeout": 300,  # a dead worker's task goes to another one after this
        "unacked_restore_throttle": 1,
    }
    assert app.conf.result_backend == "redis://127.0.0.1:6379/9"  # the embedding batches' vectors go back there
    assert app.conf.result_backend_transport_options == {"global_keyprefix": "ours:"}
    schedule = app.conf.beat_schedule["nightly-maintenance"]["schedule"]
    assert (schedule.hour, schedule.minute) == ({2}, {30})
    assert {TASK_NAME, ANALYSE, STORE, EMBED} <= set(app.tasks)
    assert app.tasks[EMBED].acks_late and not app.tasks[EMBED].ignore_result and app.tasks[TASK_NAME].ignore_result
    assert app.tasks[TASK_NAME] is not other.tasks[TASK_NAME]  # tasks belong to their app, not to every app


def test_importing_reads_no_settings_and_the_celery_command_builds_the_app_from_the_environment() -> None:
    broken = _python("import services.worker.celery_app, services.common.tasks", SENTINEL_MAINTAIN_AT="noon")
    assert broken.returncode == 0, broken.stderr  # the bad setting is not read at import
    found = _python(
        "from celery.app.utils import find_app; app = find_app('services.worker.celery_app'); "
        "print(app.conf.broker_transport_options['global_keyprefix'], sorted(app.tasks)[-3:])",
        SENTINEL_REDIS_PREFIX="from-env:",
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.split()[0] == "from-env:"
    assert all(name in found.stdout for name in (TASK_NAME, ANALYSE, STORE))
    refused = _python("from celery.app.utils import find_app; find_app('services.worker.celery_app')",
                      SENTINEL_MAINTAIN_AT="noon")  # fmt: skip
    assert refused.returncode != 0 and "noon" in refused.stderr  # read when the app is asked for, and named
