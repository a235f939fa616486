"""The mutation check: with any one gate check removed, at least one test of the pass or the tools fails.

The checks are found by ``mutate.mutants`` (every ``Verdict``-returning function of every module in
``sentinel.gates``), so a new gate is covered here without editing this file. Only the pass's, the tools' and
research's tests run against a mutant, not the gates' own unit tests (tests/gates), which would fail trivially.
"""

from __future__ import annotations

import os
import re
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


FOLDERS = ("tests/tools", "tests/maintain", "tests/research")  # tools first: their gates are killed in seconds


def _first(gate: str) -> list[str]:
    """The test folder of the pass or of research when its code imports the gate's module (src/sentinel/maintain
    -> tests/maintain): run alone first, so such a mutant is killed by its own tests, not after every tool test
    (the harness took 40 of a 79-minute CI run on a CPU without VNNI, most of it there)."""
    module = gate.split(".")[0]
    naming = re.compile(rf"\bgates\.{module}\b|\bgates import [\w,\s(]*\b{module}\b")
    return [
        f"tests/{part}"
        for part in ("maintain", "research")
        if any(naming.search(path.read_text(encoding="utf-8")) for path in (ROOT / "src/sentinel" / part).rglob("*.py"))
    ]


def _pytest(gate: str, paths: list[str]) -> subprocess.CompletedProcess[str]:
    options = ["-q", "-x", "-p", "no:cacheprovider", "-p", "tests.gates.mutate", "-m", "not slow"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *options, *paths],
        cwd=ROOT,
        env={**os.environ, "SENTINEL_MUTATE_GATE": gate},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("gate", mutants())
def test_removing_a_gate_fails_a_test(gate: str) -> None:
    first = _first(gate)
    result = _pytest(gate, first) if first else None
    if result is None or result.returncode != 1:  # not killed there: every folder is asked, tools first
        result = _pytest(gate, list(FOLDERS))
    assert result.returncode == 1, f"with {gate} removed the tests still pass:\n{result.stdout[-2000:]}"
    assert "failed" in result.stdout
