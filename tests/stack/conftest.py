"""The whole Compose stack, for real: a project of its own (own name, ports, vault, data folder, env file),
brought up once per session with compose.yaml + compose.test.yaml and the `llamacpp` profile (the embedded
model server) and torn down at the end, touching nothing else on the engine. `make test-stack` (and
`make test`) first starts the engine and builds the base images.

As root (CI), the stack runs as uid/gid 4242 rather than 0: files a container writes into the vault must come out
owned by the host user, and with root as that user a root-owned file would pass unnoticed.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILES = ("compose.yaml", "compose.test.yaml")
# What `make` exports in STACK_IMAGES=local mode (mk/docker.mk), for a bare `pytest tests/stack` on this machine.
LOCAL_IMAGES = {
    "BASE_IMAGE": "local/pybase:bookworm",
    "OPENWEBUI_IMAGE": "local/open-webui:0.12.4",
    "REDIS_IMAGE": "local/redis:bookworm",
}
UP_TIMEOUT_S = 900
NON_ROOT_ID = 4242


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    up_seconds: float = 0.0
    notes: dict[str, Any] = field(default_factory=dict)

    def compose(self, *args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        command = ["docker", "compose", "--project-directory", str(REPO), "-p", self.project]
        command += ["--env-file", self.env["STACK_ENV_FILE"]]  # never the developer's own .env
        for name in COMPOSE_FILES:
            command += ["-f", str(REPO / name)]
        done = subprocess.run(
            [*command, *args], env=self.env, capture_output=True, text=True, timeout=timeout, check=False
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
            "from services.worker.trigger import trigger_maintenance; "
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


def _docker_answers() -> bool:
    return subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if shutil.which("docker") is None or not _docker_answers():
        pytest.fail("no Docker engine answers: run `make test-stack` (it starts one and builds the base images)")
    root = tmp_path_factory.mktemp("stack")
    uid, gid = (os.getuid(), os.getgid()) if os.getuid() != 0 else (NON_ROOT_ID, NON_ROOT_ID)
    vault, data = root / "vault", root / "data"
    for folder in (
        vault,
        *(vault / f for f in ("notes", "wiki", "conversations", "sources")),
        data,
        data / "open-webui",
        data / "beat",
    ):
        folder.mkdir(parents=True)
        os.chown(folder, uid, gid)
    os.chmod(root, 0o755)

    api_key, password = secrets.token_hex(16), secrets.token_hex(12)
    api_port, openwebui_port, embedder_port = _free_port(), _free_port(), _free_port()
    env_file = root / "stack.env"  # the stack's .env: the repo's own .env stays out of the test
    env_file.write_text("")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SENTINEL_", "COMPOSE_"))}
    for key, image in LOCAL_IMAGES.items():
        env.setdefault(key, image)
    env.update(
        APP_UID=str(uid),
        APP_GID=str(gid),
        SENTINEL_VAULT=str(vault),
        STACK_DATA_DIR=str(data),
        STACK_ENV_FILE=str(env_file),
        STACK_API_KEY=api_key,
        WEBUI_SECRET_KEY=secrets.token_hex(16),
        WEBUI_ADMIN_EMAIL="admin@sentinel.test",
        WEBUI_ADMIN_PASSWORD=password,
        API_PORT=str(api_port),
        OPENWEBUI_PORT=str(openwebui_port),
        EMBEDDER_PORT=str(embedder_port),
        DOCKER_BUILDKIT="0",
        # The embedded llama.cpp model server, as `make up` picks it where no Ollama and no registry answer.
        COMPOSE_PROFILES="llamacpp",
    )
    stack = Stack(
        project=f"sentinel-stacktest-{os.getpid()}",
        uid=uid,
        gid=gid,
        vault=vault,
        data=data,
        env=env,
        api_key=api_key,
        admin_email="admin@sentinel.test",
        admin_password=password,
        api_url=f"http://127.0.0.1:{api_port}",
        openwebui_url=f"http://127.0.0.1:{openwebui_port}",
    )
    stack.write_page(
        "notes/Heliostat.md",
        "# Heliostat\n\nA heliostat is a mirror that turns to keep reflecting sunlight toward a fixed target, "
        "such as a receiver tower in a solar power plant.\n\nSee [[Solar tower]].\n",
    )
    try:
        started = time.monotonic()
        stack.compose("build", "-q", timeout=UP_TIMEOUT_S)
        # what make's stack-service-images does: drop the untagged previous builds compose left behind
        subprocess.run(
            ["docker", "image", "prune", "-f", "--filter", "label=com.docker.compose.image.builder=classic"],
            capture_output=True,
            check=False,
        )
        stack.compose("up", "-d", "--wait", "--wait-timeout", str(UP_TIMEOUT_S), timeout=UP_TIMEOUT_S + 60)
        stack.compose("wait", "openwebui-setup", timeout=300)
        stack.up_seconds = time.monotonic() - started
        yield stack
    finally:
        stack.compose("down", "--remove-orphans", "-t", "10", check=False)
