"""Schemathesis against the real server's OpenAPI schema: no generated input makes it answer with a 5xx."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.settings import Settings
from services.api.app import create_app
from tests.support.servers import serve


def test_schemathesis_finds_no_server_error(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/Page.md").write_text("# Page\ntext [[Other]]\n")
    (vault / "conversations").mkdir()
    (vault / "conversations/2026-01-01-1.md").write_text("---\nchat_id: c\n---\nhi\n")
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", sync_interval_s=0, _env_file=None)
    _, key = create_key(keys_path(settings), Scope.WRITE)
    with serve(create_app(settings)) as url:
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("schemathesis")),
                "run",
                f"{url}/openapi.json",
                "--checks",
                "not_a_server_error",
                "-H",
                f"Authorization: Bearer {key}",
                "--max-examples",
                "30",
                "--seed",
                "1",
                "--workers",
                "1",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    tested = re.search(r"generated, (\d+) passed", run.stdout)
    assert tested and int(tested.group(1)) > 100, run.stdout[-2000:]  # it really exercised the operations
