"""Print the requirements of the core package plus the named extras, one per line, from pyproject.toml.

What each service image installs before its source is copied in, so editing the source does not reinstall
them: ``python3 requirements.py api providers > /tmp/requirements.txt`` (run next to pyproject.toml).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path


def requirements(pyproject: Path, extras: list[str]) -> list[str]:
    if not pyproject.is_file():
        raise SystemExit(f"{pyproject.resolve()} is missing: run this next to the project's pyproject.toml")
    project = tomllib.loads(pyproject.read_text())["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [name for name in extras if name not in optional]
    if unknown:
        raise SystemExit(f"unknown extras {unknown}: pyproject.toml defines {sorted(optional)}")
    if {"onnx", "gpu"} <= set(extras):
        raise SystemExit("extras onnx and gpu both install the module onnxruntime (CPU and CUDA builds): name one")
    return [*project["dependencies"], *(dep for name in extras for dep in optional[name])]


if __name__ == "__main__":
    print("\n".join(requirements(Path("pyproject.toml"), sys.argv[1:])))
