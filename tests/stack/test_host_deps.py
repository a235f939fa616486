"""`make up` installs nothing on the host unless asked (issue 30): run as root on a machine without mmdebstrap, on
the offline path (no registry), it stops with what it would install and why, and apt-get is never called; asked
(SENTINEL_INSTALL_HOST_DEPS=1, which `make host-deps` sets and CI exports), it installs mmdebstrap.

The machine is this one with a PATH that lacks mmdebstrap, and with `apt-get` and `docker` replaced by recorders:
a real apt-get install is exactly the side effect under test, and the engine must not be touched. Everything else
(make, bash, deploy/stack-prepare.sh, the phases) is the real thing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HIDDEN = {"mmdebstrap", "apt-get", "apt", "docker", "dockerd"}
RECORDER = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
case "$(basename "$0") $*" in
  "docker image inspect"*) exit 1 ;;  # no image yet: the base image must be built
esac
exit 0
"""


def _machine_without_mmdebstrap(tmp_path: Path) -> tuple[dict[str, str], Path]:
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    for folder in ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        if not Path(folder).is_dir():
            continue
        for tool in Path(folder).iterdir():
            link = bin_dir / tool.name
            if tool.name not in HIDDEN and not link.exists() and not link.is_symlink():
                link.symlink_to(tool)
    for tool in ("apt-get", "docker", "dockerd"):
        (bin_dir / tool).write_text(RECORDER.format(log=calls))
        (bin_dir / tool).chmod(0o755)
    model = tmp_path / "models" / "multilingual-e5-small"
    model.mkdir(parents=True)
    (model / "tokenizer.json").write_text("{}")
    (model / "model.onnx").write_bytes(b"")
    vault = tmp_path / "vault"
    vault.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STACK_", "SENTINEL_", "APP_", "GPU"))}
    env.update(
        PATH=str(bin_dir),
        SENTINEL_VAULT=str(vault),
        SENTINEL_MODELS_DIR=str(tmp_path / "models"),
        STACK_DATA_DIR=str(tmp_path / "data"),
    )
    return env, calls


def _make_up(tmp_path: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    settings = [
        "STACK_IMAGES=local",  # no registry answers: the offline base image is needed
        "GPU=0",
        "APT_SOURCES=/etc/hostname",  # any file: the step stops before it reads it
        f"E5_DIR={tmp_path / 'models' / 'multilingual-e5-small'}",
        f"VENV={tmp_path / 'no-venv'}",  # no embedder self-check on the placeholder model
        f"STACK_DOTENV={tmp_path / 'dotenv'}",
        f"STACK_SECRETS_FILE={tmp_path / 'secrets.env'}",
        f"STACK_MODELS_FILE={tmp_path / 'models.env'}",
        f"UP_LOG={tmp_path / 'up.log'}",
    ]
    return subprocess.run(
        ["make", "-C", str(REPO), "--no-print-directory", "up", *settings, *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_make_up_without_mmdebstrap_says_what_it_would_install_and_installs_nothing(tmp_path: Path) -> None:
    env, calls = _machine_without_mmdebstrap(tmp_path)
    done = _make_up(tmp_path, env)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "needs mmdebstrap, not installed on this machine" in said, said
    assert "sudo make host-deps" in said and "SENTINEL_INSTALL_HOST_DEPS=1" in said, said
    recorded = calls.read_text() if calls.exists() else ""
    assert "apt-get" not in recorded, recorded
    assert "docker info" in recorded  # it did get as far as the engine: the refusal is the install, not earlier


@pytest.mark.skipif(os.getuid() != 0, reason="installing host packages needs root; the refusal above runs as anyone")
def test_asked_for_it_make_up_installs_mmdebstrap(tmp_path: Path) -> None:
    env, calls = _machine_without_mmdebstrap(tmp_path)
    env["SENTINEL_INSTALL_HOST_DEPS"] = "1"
    done = _make_up(tmp_path, env)
    recorded = calls.read_text()
    assert "apt-get install -y -q mmdebstrap" in recorded, done.stdout + done.stderr


@pytest.mark.skipif(os.getuid() != 0, reason="installing host packages needs root")
def test_make_host_deps_is_the_asking(tmp_path: Path) -> None:
    env, calls = _machine_without_mmdebstrap(tmp_path)
    done = subprocess.run(
        ["make", "-C", str(REPO), "--no-print-directory", "host-deps", "STACK_IMAGES=local", "GPU=0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "apt-get install -y -q mmdebstrap" in calls.read_text()
    assert "installing on the host (asked for): mmdebstrap" in done.stdout
