"""Schemathesis against the real server's OpenAPI schema, with a read key and a write key: no generated input
makes it answer with a 5xx, and every client error says which field was wrong."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.settings import Settings
from services.api.app import create_app
from tests.support.servers import serve

CHECKS = Path(__file__).with_name("schema_checks.py")
# With a write key these reach past this process (the shared Redis queue and its workers, wake-on-LAN packets); the
# read key still fuzzes them, where the scope gate must answer 403 before anything runs.
REACHES_OUT = r"^/(v1/maintain|v1/embed|api/pool/analyses|api/nodes/wake/.*)$"


@pytest.mark.parametrize("scope", [Scope.READ, Scope.WRITE])
def test_schemathesis_finds_no_server_error(tmp_path: Path, scope: Scope) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/Page.md").write_text("# Page\ntext [[Other]]\n")
    (vault / "notes/Latin.md").write_bytes(b"caf\xe9 [[Page]]\r\n")
    (vault / "conversations").mkdir()
    (vault / "conversations/2026-01-01-1.md").write_text("---\nchat_id: c\n---\nhi\n")
    os.symlink("../conversations", vault / "notes/convlink")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", sync_interval_s=0, _env_file=None)
    _, key = create_key(keys_path(settings), scope)
    transcript = (vault / "conversations/2026-01-01-1.md").read_bytes()
    exclude = ["--exclude-path-regex", REACHES_OUT] if scope is Scope.WRITE else []
    with serve(create_app(settings)) as url:
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("schemathesis")),
                "run",
                f"{url}/openapi.json",
                "--checks",
                "not_a_server_error,client_error_names_the_field",
                "-H",
                f"Authorization: Bearer {key}",
                "--max-examples",
                "30",
                "--seed",
                "1",
                "--workers",
                "1",
                *exclude,
            ],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "SCHEMATHESIS_HOOKS": str(CHECKS)},
        )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    tested = re.search(r"generated, (\d+) passed", run.stdout)
    assert tested and int(tested.group(1)) > 100, run.stdout[-2000:]  # it really exercised the operations
    assert (vault / "conversations/2026-01-01-1.md").read_bytes() == transcript  # no input forged the record
    assert (vault / "notes/Latin.md").read_bytes() == b"caf\xe9 [[Page]]\r\n"
