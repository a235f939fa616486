"""One running Compose test project and the ways to talk to it (its fixture, ``stack``, is tests/stack/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Stack:
    """One running test project and the ways to talk to it."""

    project: str
    uid: int
    gid: int
    vault: Path
    data: Path
    env: dict[str, str]
    api_key: str
    admin_email: str
    admin_password: str
    api_url: str
    openwebui_url: str
    # The checkout compose runs in: a fresh copy of this one, with nothing but compose.yaml (plain `docker compose`).
    project_dir: Path = REPO
    up_seconds: float = 0.0
    notes: dict[str, Any] = field(default_factory=dict)

    def compose(self, *args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        command = ["docker", "compose", "-p", self.project]
        done = subprocess.run(
            [*command, *args],
            cwd=self.project_dir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"docker compose {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}\n{self.diagnosis()}"
            )
        return done

    def services(self) -> dict[str, dict[str, Any]]:
        """`compose ps -a` by service name: State, Health, ExitCode..."""
        out = self.compose("ps", "-a", "--format", "json", check=False).stdout
        rows = [json.loads(line) for line in out.splitlines() if line.strip().startswith("{")]
        return {row["Service"]: row for row in rows}

    def logs(self, service: str = "", tail: int = 400) -> str:
        args = ["logs", "--no-color", f"--tail={tail}"] + ([service] if service else [])
        return self.compose(*args, check=False).stdout

    def diagnosis(self) -> str:
        table = "\n".join(
            f"  {name}: {row.get('State')} {row.get('Health', '')} exit={row.get('ExitCode')}"
            for name, row in self.services().items()
        )
        return f"services:\n{table}\nlast log lines:\n{self.logs(tail=40)[-6000:]}"

    def tool(self, name: str, **arguments: Any) -> str:
        """Call a tool route of the API the way Open WebUI's tool does."""
        response = httpx.post(
            f"{self.api_url}/v1/tools/{name}",
            json=arguments,
            headers={"authorization": f"Bearer {self.api_key}"},
            timeout=60,
        )
        response.raise_for_status()
        return str(response.json()["text"])

    def trigger_maintenance(self, timeout: float = 600) -> str:
        """Queue a pass through the worker's own trigger (what the API's endpoint calls) and return its task id.
        A pass already running (beat queues a catch-up one at start) is waited out, so the pass queued here is
        the one that sees the pages the tests wrote."""
        code = (
            "import json; from sentinel.settings import Settings; "
            "from services.common.tasks import trigger_maintenance; "
            "print(json.dumps(trigger_maintenance(Settings())))"
        )
        deadline = time.monotonic() + timeout
        while True:
            out = self.compose("exec", "-T", "worker", "python3", "-c", code).stdout
            answer = json.loads(out.strip().splitlines()[-1])
            if answer["queued"]:
                return str(answer["task_id"])
            if time.monotonic() > deadline:
                raise AssertionError(f"a pass kept running for {timeout:.0f} s: {answer}\n{self.diagnosis()}")
            time.sleep(5)

    def write_page(self, relpath: str, text: str) -> Path:
        """A page as the user would save it: written on the host, owned by the host user."""
        path = self.vault / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        for made in [path, *path.relative_to(self.vault).parents]:
            os.chown(self.vault / made, self.uid, self.gid)
        return path
