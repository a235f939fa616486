"""What the providers log: the warnings a test reads back from pytest's caplog."""

from __future__ import annotations

import pytest


def notices(caplog: pytest.LogCaptureFixture, words: str) -> list[str]:
    """Provider warnings that contain ``words``."""
    return [r.getMessage() for r in caplog.records if r.name == "sentinel.providers" and words in r.getMessage()]
