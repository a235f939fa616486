"""The embedding workers' compose files, rendered by `docker compose config` (the compose binary only, no engine):
compose.embed-lan.yaml builds the CPU engine; compose.embed-gpu.yaml on top of it builds the same worker with the
gpu extra instead (never both: one module, two packages) and reserves the machine's NVIDIA GPUs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from services.requirements import requirements

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    subprocess.run(["docker", "compose", "version"], capture_output=True, check=False).returncode != 0,
    reason="no `docker compose`: make docker-tools installs it",
)


def embed_worker(*files: str) -> dict[str, Any]:
    chosen = [arg for name in files for arg in ("-f", name)]
    rendered = subprocess.run(["docker", "compose", *chosen, "config", "--format", "json"], cwd=REPO,
                              capture_output=True, text=True, check=True)  # fmt: skip
    service: dict[str, Any] = json.loads(rendered.stdout)["services"]["embed-worker"]
    return service


def test_the_lan_worker_builds_the_cpu_engine_and_the_gpu_override_the_cuda_one() -> None:
    cpu = embed_worker("compose.embed-lan.yaml")
    gpu = embed_worker("compose.embed-lan.yaml", "compose.embed-gpu.yaml")
    assert "onnx" in cpu["build"]["args"]["EXTRAS"].split() and "deploy" not in cpu
    extras = gpu["build"]["args"]["EXTRAS"].split()
    assert "gpu" in extras and "onnx" not in extras
    assert any(dep.startswith("onnxruntime-gpu") for dep in requirements(REPO / "pyproject.toml", extras))
    assert gpu["build"]["args"]["IMPORTS"] == cpu["build"]["args"]["IMPORTS"]  # the image must import onnxruntime
    assert gpu["image"] != cpu["image"]  # neither build replaces the other's image
    [device] = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert device["driver"] == "nvidia" and device["capabilities"] == ["gpu"]
    # the same worker otherwise: its queue, its model, the stack's Redis
    assert (gpu["command"], gpu["environment"], gpu["volumes"]) == (cpu["command"], cpu["environment"], cpu["volumes"])
