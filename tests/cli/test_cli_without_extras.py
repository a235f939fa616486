"""`pip install .` with no extras runs `sentinel index ...` and `sentinel search`: the pool (Redis, aiohttp,
wake-on-LAN from the api extra) is imported only by the commands that need it, which then name the extra.

The command line runs in a child process in which importing any extra's module fails as if not installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.vault import WriteVault

EXTRAS = ["redis", "aiohttp", "wakeonlan", "celery", "kombu", "fastapi", "uvicorn", "prometheus_client", "ollama"]
WITHOUT_EXTRAS = f"""
import importlib.abc, sys
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {EXTRAS!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, NotInstalled())
from sentinel.cli import app
app(sys.argv[1:], prog_name="sentinel")
"""


def _sentinel(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", WITHOUT_EXTRAS, *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_index_and_search_run_without_the_extras_and_the_pool_names_its_extra(
    vault_settings: WriteVault, tmp_path: Path
) -> None:
    settings = vault_settings({"notes/Growth queue.md": "# Growth queue\nNames no page defines yet.\n"})
    env = {
        "PATH": "/usr/bin:/bin",
        "SENTINEL_VAULT": str(settings.vault),
        "SENTINEL_INDEX_PATH": str(tmp_path / "index.db"),
    }
    synced = _sentinel("index", "sync", env=env)
    assert synced.returncode == 0 and "added 1" in synced.stdout, synced.stderr
    found = _sentinel("search", "growth queue", env=env)
    assert found.returncode == 0 and "notes/Growth queue.md" in found.stdout, found.stderr
    agent = _sentinel("pool", "agent", "--once", env=env)
    assert agent.returncode == 2 and "pip install 'sentinel[api]'" in agent.stderr, agent.stderr
