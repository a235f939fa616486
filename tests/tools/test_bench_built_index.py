"""A bench that only reads an index refuses a path where none is, by name, and creates nothing there: opening an
index creates it, and a question typed where the path went once left an empty SQLite file named as the question
at the repository's root, from which the bench answered nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.built_index import built_index

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}"}


@pytest.mark.parametrize(
    "bench", ["bench.followups", "bench.unanswered", "bench.subject_gate", "bench.fusion_misses", "bench/same_hits.py"]
)
def test_a_bench_given_no_index_refuses_it_by_name_and_creates_no_file(tmp_path: Path, bench: str) -> None:
    question = tmp_path / "can i use obsidian on my apple watch"
    args = ["--index", str(question), "--vault", str(tmp_path), "--convo-index", str(question)]
    wanted = {"bench.followups": 4, "bench.fusion_misses": 6, "bench/same_hits.py": 4}.get(bench, 2)
    done = subprocess.run(
        [sys.executable, *(["-m", bench] if bench.startswith("bench.") else [bench]), *args[:wanted]],
        cwd=REPO,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert "no index at" in done.stderr and "can i use obsidian on my apple watch" in done.stderr
    assert not question.exists()


def test_an_index_file_that_exists_is_taken_as_a_path(tmp_path: Path) -> None:
    index = tmp_path / "index.db"
    index.touch()
    assert built_index(str(index)) == index
