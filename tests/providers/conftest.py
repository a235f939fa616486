"""Provider fixtures: a loopback port nothing listens on."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
