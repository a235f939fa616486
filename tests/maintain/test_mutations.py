"""The mutation check: with any one gate's call removed, at least one test of the pass fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.maintain.mutate import NEUTRAL

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("gate", sorted(NEUTRAL))
def test_removing_a_gate_fails_a_test(gate: str) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.maintain.mutate",
            "-m",
            "not slow",
            "tests/maintain",
            "--deselect",
            "tests/maintain/test_mutations.py",
        ],
        cwd=ROOT,
        env={**os.environ, "SENTINEL_MUTATE_GATE": gate},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, f"with the {gate} gate removed the tests still pass:\n{result.stdout[-2000:]}"
    assert "failed" in result.stdout
