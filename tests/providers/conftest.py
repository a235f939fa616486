from __future__ import annotations

import socket

import pytest

from tests.support.fixtures import llama_settings, llama_url  # noqa: F401


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def notices(caplog: pytest.LogCaptureFixture, words: str) -> list[str]:
    """Provider warnings that contain ``words``."""
    return [r.getMessage() for r in caplog.records if r.name == "sentinel.providers" and words in r.getMessage()]
