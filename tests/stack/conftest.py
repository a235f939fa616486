"""The whole Compose stack, for real, as a new user starts it: a fresh copy of this checkout (its tracked and
untracked files, nothing git ignores: no .env, no vault, no .sentinel), the embedding model linked in, and a plain
`docker compose up -d --wait` with no variable exported. Nothing is typed: the init service generates the
secrets, creates ./vault and picks the user from the clone's owner. Torn down at the end, touching nothing else on
the engine.

The images are built first, as `make images` builds them here (no container registry): the offline Open WebUI and
Redis under the names compose.yaml uses, Sentinel's own images on the local base image. `make test-stack` (and
`make test`) first starts the engine and builds the base images.

What the command line carries that a user's would not, all because the machine is shared: `-p` (a project name
of its own: compose.yaml's default, `sentinel`, may be running), the three published ports (free ones), and
STACK_LLM_THREADS=1: on a busy 2-core machine two llama.cpp threads spin against each other and generation
collapses (measured: a maintenance call of the small model ran past its 600 s timeout at load 15 with two).
None of them is needed for the stack to come up.

As root (CI), the clone belongs to uid/gid 4242: the stack must come out running as the clone's (the vault's)
owner, and with root as that owner a root-owned file would pass unnoticed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.compose_stack import REPO, Stack
from tests.support.servers import free_port

UP_TIMEOUT_S = 900
NON_ROOT_ID = 4242
# What `make images` does on the offline path (mk/docker.mk): tag the offline builds with compose.yaml's names.
OFFLINE_TAGS = {"local/open-webui:0.12.4": "sentinel-open-webui:local", "local/redis:bookworm": "sentinel-redis:local"}
OFFLINE_BASE = "local/pybase:bookworm"


def _docker_answers() -> bool:
    return subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0


def _fresh_clone(root: Path) -> Path:
    """This checkout as `git clone` would give it, with the working tree's edits: what git tracks or would track."""
    clone = root / "sentinel"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (entry.decode() for entry in listed)):
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    # The embedding model: a user runs `make models` (or the init step fetches it where the hub answers).
    (clone / "models").symlink_to((REPO / "models").resolve())
    return clone


def _build_images(clone: Path) -> None:
    for image, name in OFFLINE_TAGS.items():
        subprocess.run(["docker", "tag", image, name], check=True, capture_output=True)
    env = {**os.environ, "BASE_IMAGE": OFFLINE_BASE, "DOCKER_BUILDKIT": "0"}
    subprocess.run(
        ["docker", "compose", "build", "-q", "embedder", "api", "worker", "llm"],
        cwd=clone,
        env=env,
        check=True,
        capture_output=True,
        timeout=UP_TIMEOUT_S,
    )
    # what make's stack-service-images does: drop the untagged leftovers of the build (previous builds, sibling
    # stages), by the labels only the stack's builds carry
    for label in ("com.docker.compose.image.builder=classic", "org.sentinel.stack=1"):
        subprocess.run(
            ["docker", "image", "prune", "-f", "--filter", f"label={label}"], capture_output=True, check=False
        )


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if shutil.which("docker") is None or not _docker_answers():
        pytest.fail("no Docker engine answers: run `make test-stack` (it starts one and builds the base images)")
    if not (REPO / "models" / "multilingual-e5-small").is_dir():
        pytest.fail("no models/multilingual-e5-small in this checkout: make models")
    root = tmp_path_factory.mktemp("stack")
    os.chmod(root, 0o755)
    clone = _fresh_clone(root)
    uid, gid = (os.getuid(), os.getgid()) if os.getuid() != 0 else (NON_ROOT_ID, NON_ROOT_ID)
    if os.getuid() == 0:  # a non-root user's clone
        for path in [clone, *clone.rglob("*")]:
            os.lchown(path, uid, gid)

    api_port, openwebui_port, embedder_port = free_port(), free_port(), free_port()
    # No Sentinel, stack, Open WebUI or Compose setting from the caller's shell, no image names: a new user's shell.
    prefixes = ("SENTINEL_", "COMPOSE_", "STACK_", "WEBUI_", "APP_", "DOCKER_", "BASE_IMAGE", "OPENWEBUI_", "REDIS_")
    env = {key: value for key, value in os.environ.items() if not key.startswith(prefixes)}
    env.update(API_PORT=str(api_port), OPENWEBUI_PORT=str(openwebui_port), EMBEDDER_PORT=str(embedder_port))
    env.update(STACK_LLM_THREADS="1")
    stack = Stack(
        project=f"h30-stacktest-{os.getpid()}",
        uid=uid,
        gid=gid,
        vault=clone / "vault",
        data=clone / ".sentinel" / "stack",
        env=env,
        api_key="",
        admin_email="admin@sentinel.local",
        admin_password="",
        api_url=f"http://127.0.0.1:{api_port}",
        openwebui_url=f"http://127.0.0.1:{openwebui_port}",
        project_dir=clone,
    )
    try:
        _build_images(clone)
        started = time.monotonic()
        stack.compose("up", "-d", "--wait", "--wait-timeout", str(UP_TIMEOUT_S), timeout=UP_TIMEOUT_S + 60)
        stack.compose("wait", "openwebui-setup", timeout=300)
        stack.up_seconds = time.monotonic() - started
        # The secrets init generated, read where the services read them (make login does the same).
        read = ("exec", "-T", "open-webui", "cat")
        stack.api_key = stack.compose(*read, "/run/sentinel/STACK_API_KEY").stdout.strip()
        stack.admin_password = stack.compose(*read, "/run/sentinel/WEBUI_ADMIN_PASSWORD").stdout.strip()
        stack.write_page(
            "notes/Heliostat.md",
            "# Heliostat\n\nA heliostat is a mirror that turns to keep reflecting sunlight toward a fixed target, "
            "such as a receiver tower in a solar power plant.\n\nSee [[Solar tower]].\n",
        )
        yield stack
    finally:
        stack.compose("down", "--remove-orphans", "-t", "10", check=False)
        stack.compose("down", "--volumes", check=False)  # the secrets volume: this project's only
