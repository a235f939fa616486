"""The whole Compose stack, for real: a project of its own (own name, ports, vault, data folder, env file),
brought up once per session with compose.yaml + compose.test.yaml and the `llamacpp` profile (the embedded
model server) and torn down at the end, touching nothing else on the engine. `make test-stack` (and
`make test`) first starts the engine and builds the base images.

As root (CI), the stack runs as uid/gid 4242 rather than 0: files a container writes into the vault must come out
owned by the host user, and with root as that user a root-owned file would pass unnoticed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.support.compose_stack import Stack
from tests.support.servers import free_port

# What `make` exports in STACK_IMAGES=local mode (mk/docker.mk), for a bare `pytest tests/stack` on this machine.
LOCAL_IMAGES = {
    "BASE_IMAGE": "local/pybase:bookworm",
    "OPENWEBUI_IMAGE": "local/open-webui:0.12.4",
    "REDIS_IMAGE": "local/redis:bookworm",
}
UP_TIMEOUT_S = 900
NON_ROOT_ID = 4242


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
    api_port, openwebui_port, embedder_port = free_port(), free_port(), free_port()
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
