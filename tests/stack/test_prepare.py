"""`make up`'s deciding step (deploy/stack-prepare.sh) on a clone with no .env: it leaves the stack's secrets to the
init service (only SearXNG's is generated, into a 0600 file, and kept), creates ./vault with the four folders and
the welcome page, picks the model server (the host's Ollama when it answers, else one in the stack, its model by
the hardware) and says why, and refuses placeholder secrets with the command that makes a real one. Run in a copy
of the repository's deploy/ folder (and the model table), so the checkout's own files stay out of it.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import pytest

from sentinel.stack_model import choose, ram_mib
from tests.support.http_stub import HttpStub

REPO = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "deploy", tmp_path / "deploy")
    (tmp_path / "src" / "sentinel").mkdir(parents=True)
    for module in ("__init__.py", "stack_model.py"):
        shutil.copy(REPO / "src" / "sentinel" / module, tmp_path / "src" / "sentinel" / module)
    model = tmp_path / "models" / "multilingual-e5-small"
    model.mkdir(parents=True)
    (model / "model.onnx").write_bytes(b"onnx")
    (model / "tokenizer.json").write_text("{}")
    return tmp_path


def _prepare(clone: Path, ollama_url: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SENTINEL_", "STACK_", "WEBUI_"))}
    base.update(
        STACK_IMAGES="local",
        STACK_HOST_OLLAMA_URL=ollama_url or f"http://127.0.0.1:{_closed_port()}",
    )
    base.update(env)
    return subprocess.run(
        [str(clone / "deploy" / "stack-prepare.sh")], env=base, capture_output=True, text=True, check=False
    )


def _read_env(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line and line[0] != "#")
    return dict(pairs)


def test_no_env_file_makes_the_vault_and_picks_the_offline_model_server(clone: Path) -> None:
    done = _prepare(clone)
    assert done.returncode == 0, done.stderr
    secrets_file = clone / ".sentinel" / "secrets.env"
    assert stat.S_IMODE(secrets_file.stat().st_mode) == 0o600
    secrets = _read_env(secrets_file)
    assert sorted(secrets) == ["SEARXNG_SECRET"], "the stack's own secrets are the init service's"
    assert len(secrets["SEARXNG_SECRET"]) == 64

    vault = clone / "vault"
    assert sorted(p.name for p in vault.iterdir()) == ["conversations", "notes", "sources", "wiki"]
    welcome = (vault / "notes" / "Welcome to Sentinel.md").read_text()
    assert all(f"{folder}/" in welcome for folder in ("notes", "wiki", "conversations", "sources"))

    models = _read_env(clone / ".sentinel" / "models.env")
    assert models["STACK_MODEL_SERVER"] == "llamacpp" and models["STACK_MODEL_URL"] == "http://llm:8080/v1"
    assert models["STACK_CHAT_MODEL"] == "qwen2.5-coder-0.5b-instruct" and models["STACK_REPLY_TOKENS"] == "160"
    assert models["STACK_LLM_REPLICAS"] == "1"
    assert "llamacpp (http://llm:8080/v1): no Ollama on the host and no container registry" in done.stdout

    again = _prepare(clone)  # a second make up keeps the secrets (Open WebUI's database was seeded with them)
    assert again.returncode == 0, again.stderr
    assert _read_env(secrets_file) == secrets
    assert "generated" not in again.stdout


def test_values_in_env_win_and_a_registry_means_ollama_in_the_stack(clone: Path) -> None:
    (clone / ".env").write_text("WEBUI_ADMIN_PASSWORD='my own password'\n")
    done = _prepare(clone, STACK_IMAGES="official")
    assert done.returncode == 0, done.stderr
    assert "WEBUI_ADMIN_PASSWORD" not in _read_env(clone / ".sentinel" / "secrets.env")
    models = _read_env(clone / ".sentinel" / "models.env")
    # the in-stack Ollama's model by this machine's hardware (no GPU the stack can use: GPU unset)
    chosen = choose(None, ram_mib(), os.cpu_count() or 1)
    assert models["STACK_MODEL_SERVER"] == "ollama" and models["STACK_CHAT_MODEL"] == chosen.model
    assert models["STACK_OLLAMA_MODEL"] == chosen.model and models["STACK_LLM_REPLICAS"] == "0"
    assert f"chat model    {chosen.model}: {chosen.reason}" in done.stdout


def test_a_chat_model_set_in_env_is_not_second_guessed(clone: Path) -> None:
    (clone / ".env").write_text("STACK_OLLAMA_MODEL=llama3.1:8b\n")
    done = _prepare(clone, STACK_IMAGES="official")
    assert done.returncode == 0, done.stderr
    assert _read_env(clone / ".sentinel" / "models.env")["STACK_CHAT_MODEL"] == "llama3.1:8b"
    assert "llama3.1:8b: STACK_CHAT_MODEL/STACK_OLLAMA_MODEL in .env" in done.stdout


def test_the_hosts_own_ollama_wins_when_it_answers(clone: Path) -> None:
    tags = {"models": [{"name": "llama3.2:3b"}, {"name": "qwen3:8b"}]}
    with HttpStub(lambda request: (200, tags) if request.path == "/api/tags" else (404, {})) as ollama:
        done = _prepare(clone, ollama_url=ollama.url, STACK_IMAGES="official")
    assert done.returncode == 0, done.stderr
    models = _read_env(clone / ".sentinel" / "models.env")
    assert models["STACK_MODEL_SERVER"] == "host"
    assert models["STACK_MODEL_URL"] == "http://host.docker.internal:11434/v1"
    assert models["STACK_CHAT_MODEL"] == "llama3.2:3b" and models["STACK_REPLY_TOKENS"] == "1024"


def test_placeholder_secrets_are_refused_with_the_command_that_makes_one(clone: Path) -> None:
    (clone / ".env").write_text("WEBUI_SECRET_KEY=change-me-to-a-long-random-string\nSTACK_API_KEY=change-me-too\n")
    done = _prepare(clone)
    assert done.returncode == 1
    for name in ("WEBUI_SECRET_KEY", "STACK_API_KEY"):
        assert f"{name} in .env is the placeholder" in done.stderr and f"{name}=$(openssl rand -hex" in done.stderr
    assert not (clone / ".sentinel" / "stack").exists(), "nothing may be set up while something is missing"


@pytest.mark.parametrize("value", ["abc", "5", "384 tokens"])
def test_a_reply_cap_that_is_no_token_count_is_named_before_anything_starts(clone: Path, value: str) -> None:
    (clone / ".env").write_text(f"STACK_REPLY_TOKENS={value}\nSENTINEL_CHAT__REPLY_TOKENS=512\n")
    done = _prepare(clone)
    assert done.returncode == 1
    assert f"STACK_REPLY_TOKENS={value}: the longest answer, in tokens, must be a whole number" in done.stderr
    assert "SENTINEL_CHAT__REPLY_TOKENS" not in done.stderr  # a valid one is not blamed
    assert not (clone / ".sentinel" / "stack").exists(), "nothing may be set up while something is missing"


def test_a_vault_that_is_set_but_missing_is_named_not_created(clone: Path) -> None:
    missing = clone / "elsewhere" / "MyVault"
    done = _prepare(clone, SENTINEL_VAULT=str(missing))
    assert done.returncode == 1
    assert f"SENTINEL_VAULT={missing}: no such folder" in done.stderr
    assert not missing.exists() and not (clone / "vault").exists()
