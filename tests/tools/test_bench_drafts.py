"""bench/drafts.py's capture refuses a path it cannot append to before any question is asked: found after the
first answer, a bad ``--drafts`` path would cost the model's whole run."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import drafts
from sentinel.answer import pipeline


def test_a_drafts_path_in_no_folder_is_refused_by_name_before_anything_is_captured(tmp_path: Path) -> None:
    missing = tmp_path / "no such folder" / "drafts.jsonl"
    checked = pipeline._checked
    with (
        pytest.raises(SystemExit, match=r"--drafts .*drafts\.jsonl: cannot append there"),
        drafts.recording(missing, "q"),
    ):
        pass
    assert pipeline._checked is checked  # nothing was wrapped
    assert not missing.parent.exists()


def test_a_drafts_path_that_can_be_appended_to_wraps_the_check_and_restores_it(tmp_path: Path) -> None:
    checked = pipeline._checked
    with drafts.recording(tmp_path / "drafts.jsonl", "q"):
        assert pipeline._checked is not checked
    assert pipeline._checked is checked
