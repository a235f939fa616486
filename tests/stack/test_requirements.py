"""What each service image installs comes from pyproject.toml through services/requirements.py."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from services.requirements import requirements

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
PROJECT = tomllib.loads(PYPROJECT.read_text())["project"]


def test_the_core_dependencies_then_each_named_extra() -> None:
    optional = PROJECT["optional-dependencies"]
    assert requirements(PYPROJECT, ["api", "onnx"]) == [*PROJECT["dependencies"], *optional["api"], *optional["onnx"]]
    assert requirements(PYPROJECT, []) == PROJECT["dependencies"]


def test_an_unknown_extra_is_named_with_the_ones_that_exist() -> None:
    with pytest.raises(SystemExit, match=r"unknown extras \['cuda'\]: pyproject.toml defines \[.*'api'"):
        requirements(PYPROJECT, ["api", "cuda"])


def test_the_cpu_and_gpu_engines_are_never_installed_together() -> None:
    """onnxruntime and onnxruntime-gpu are one module in two packages: installed together, each overwrites the
    other's files. The GPU embedding worker's image names gpu, the others onnx."""
    optional = PROJECT["optional-dependencies"]
    assert requirements(PYPROJECT, ["worker", "gpu"])[-2:] == optional["gpu"]
    names = {re.split(r"[\[<>=]", dep)[0] for dep in optional["gpu"]}
    assert "onnxruntime-gpu" in names and "onnxruntime" not in names
    with pytest.raises(SystemExit, match="extras onnx and gpu both install the module onnxruntime"):
        requirements(PYPROJECT, ["worker", "onnx", "gpu"])


def test_run_elsewhere_it_says_where_to_run_it(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"run this next to the project's pyproject\.toml"):
        requirements(tmp_path / "pyproject.toml", ["api"])
