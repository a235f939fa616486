"""A plain `docker compose up` where one of the stack's images is missing builds it, without first asking a
registry for a name no registry has (`pull_policy: never` beside every `build:`): offline that pull was one failed
request per image before anything was built. Redis stands for every such image: its name is the one compose.yaml
lets a test change (REDIS_IMAGE), so the shared engine's own `sentinel-redis:local` is left alone; its official
image cannot be pulled here, so the offline base is its FROM (REDIS_BASE_IMAGE). Needs the engine and
local/pybase:bookworm (`make images`, `make test-stack`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASE = "local/pybase:bookworm"

pytestmark = pytest.mark.slow


def _docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=False, timeout=600)


def test_a_missing_image_is_built_not_pulled() -> None:
    if _docker("image", "inspect", BASE).returncode != 0:
        pytest.fail(f"no {BASE} on the engine: make images (or make test-stack) builds it")
    image = f"sentinel-missing-test:{os.getpid()}"
    project = f"sentinel-missing-{os.getpid()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPOSE_", "STACK_", "DOCKER_", "REDIS_"))}
    env.update(REDIS_IMAGE=image, REDIS_BASE_IMAGE=BASE)
    compose = ["docker", "compose", "-p", project, "--project-directory", str(REPO), "-f", str(REPO / "compose.yaml")]
    try:
        done = subprocess.run([*compose, "create", "redis"], env=env, capture_output=True, text=True, timeout=600)
        said = done.stdout + done.stderr
        assert done.returncode == 0, said
        assert "Pulling" not in said and "registry-1.docker.io" not in said, said
        labels = _docker("image", "inspect", "--format", "{{.Id}}", image)
        assert labels.returncode == 0, f"{image} was not built:\n{said}"
        again = subprocess.run([*compose, "create", "redis"], env=env, capture_output=True, text=True, timeout=600)
        assert "Building" not in again.stdout + again.stderr, "an image that exists was built again"
    finally:
        subprocess.run([*compose, "down"], env=env, capture_output=True, check=False, timeout=120)
        _docker("image", "rm", "-f", image)


def test_without_a_registry_the_failed_build_names_make_images() -> None:
    """Where no registry answers (here), the missing image's build stops at its official base image with Docker's
    own error; the step printed just before it says what to run. Every Dockerfile compose builds carries it."""
    if subprocess.run([str(REPO / "deploy" / "registry-reachable.sh")], check=False).returncode == 0:
        pytest.skip("a container registry answers here: the build would fetch its base image")
    image = f"sentinel-missing-test:{os.getpid()}"
    project = f"sentinel-missing-{os.getpid()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPOSE_", "STACK_", "DOCKER_", "REDIS_"))}
    env.update(REDIS_IMAGE=image)
    compose = ["docker", "compose", "-p", project, "--project-directory", str(REPO), "-f", str(REPO / "compose.yaml")]
    try:
        done = subprocess.run([*compose, "create", "redis"], env=env, capture_output=True, text=True, timeout=600)
    finally:
        subprocess.run([*compose, "down"], env=env, capture_output=True, check=False, timeout=120)
        _docker("image", "rm", "-f", image)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "run make images once" in said, said
    for dockerfile in (
        "services/Dockerfile",
        "deploy/images/llamacpp/Dockerfile",
        "deploy/images/*/official.Dockerfile",
    ):
        for path in REPO.glob(dockerfile):
            first_from = path.read_text().split("\nFROM ", 1)[0]
            assert 'ARG NO_REGISTRY="no registry answers? run make images once' in first_from, path
