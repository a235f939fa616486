"""The mutation check: with any one gate check removed, at least one test of the pass or the tools fails.

The checks are found by ``mutate.mutants`` (every ``Verdict``-returning function of every module in
``sentinel.gates``), so a new gate is covered here without editing this file. Only the pass's, the tools' and
research's tests run against a mutant, not the gates' own unit tests (tests/gates), which would fail trivially.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gates.mutate import checks, gate_modules, mutants, short

ROOT = Path(__file__).resolve().parents[2]


def test_every_gate_module_is_reachable_by_the_harness() -> None:
    unreachable = [short(m) for m in gate_modules() if not checks(m)]
    assert unreachable == [], f"gate modules with no Verdict-returning check: {unreachable}"
    assert len(mutants()) >= 15


@pytest.mark.parametrize("gate", mutants())
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
            "tests.gates.mutate",
            "-m",
            "not slow",
            "tests/tools",  # first: the tools' gates are killed there in seconds, not after the pass's tests
            "tests/maintain",
            "tests/research",
        ],
        cwd=ROOT,
        env={**os.environ, "SENTINEL_MUTATE_GATE": gate},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, f"with {gate} removed the tests still pass:\n{result.stdout[-2000:]}"
    assert "failed" in result.stdout
