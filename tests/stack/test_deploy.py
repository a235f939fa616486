"""`sentinel deploy install`: the systemd user units it writes start this Python, from this checkout, with a
persistent timer at the configured time, and systemd itself accepts them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sentinel import cli
from sentinel.cli import deploy
from sentinel.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def _install(unit_dir: Path, *extra: str) -> str:
    result = CliRunner().invoke(cli.app, ["deploy", "install", "--unit-dir", str(unit_dir), *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_units_start_this_python_from_this_checkout(tmp_path: Path) -> None:
    output = _install(tmp_path, "--repo", str(REPO))
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(deploy.UNITS)
    for name in (*deploy.SERVICES, "sentinel-maintenance.service"):
        text = (tmp_path / name).read_text()
        assert f"ExecStart={sys.executable} -m " in text, name
        assert f"WorkingDirectory={REPO}" in text, name
        assert re.search(r"@[A-Z_]+@", text) is None, f"{name} kept a placeholder"
    worker = (tmp_path / "sentinel-worker.service").read_text()
    assert " worker " in worker and " -B" not in worker  # no beat: the timer is the one nightly schedule
    maintenance = (tmp_path / "sentinel-maintenance.service").read_text()
    assert "-m sentinel.maintain --scheduled" in maintenance and "Restart=on-failure" in maintenance
    assert "loginctl enable-linger" in output
    assert "systemctl --user list-timers sentinel-maintenance.timer" in output


def test_timer_is_persistent_at_the_configured_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_MAINTAIN_AT", "4:30")
    _install(tmp_path, "--repo", str(REPO))
    timer = (tmp_path / "sentinel-maintenance.timer").read_text()
    assert "OnCalendar=*-*-* 04:30:00" in timer
    assert "Persistent=true" in timer


def test_embedder_port_follows_the_embedder_url(tmp_path: Path) -> None:
    units = deploy.render_units(Settings(embedder_url="http://127.0.0.1:9123"), REPO, Path(sys.executable))
    assert "--port 9123" in units["sentinel-embedder.service"]
    assert "SENTINEL_EMBEDDER_URL=http://127.0.0.1:9123" in units["sentinel-api.service"]


def test_bad_time_and_bad_checkout_are_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(deploy.DeployError, match="HH:MM"):
        deploy.render_units(Settings(maintain_at="11pm"), REPO, Path(sys.executable))
    with pytest.raises(deploy.DeployError, match="--repo"):
        deploy.render_units(Settings(), tmp_path, Path(sys.executable))


def test_systemd_accepts_the_units(tmp_path: Path) -> None:
    _install(tmp_path, "--repo", str(REPO))
    units = [str(p) for p in sorted(tmp_path.iterdir())]
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *units], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
