"""Open WebUI tests: its own venv (.venv-owui, built by `make openwebui`), never imported into this one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.openwebui.servers import OWUI_PYTHON


@pytest.fixture(scope="session")
def owui_python() -> Path:
    """Open WebUI's interpreter; a missing one fails the test (CI builds it first through test-prereqs)."""
    if not OWUI_PYTHON.is_file():
        pytest.fail(f"{OWUI_PYTHON} is missing: run `make openwebui` (pip-installs open-webui into .venv-owui)")
    return OWUI_PYTHON
