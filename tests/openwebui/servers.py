"""Real servers for the Open WebUI tests, each a subprocess on loopback with its own fresh data folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from redis import Redis

from tests.openwebui.chat_backends import ChatBackend
from tests.support.embedder import E5_DIR
from tests.support.llama import MODEL_ALIAS, llama_server
from tests.support.redis_prefix import REDIS_URL
from tests.support.servers import free_port

REPO = Path(__file__).resolve().parents[2]
OWUI_PYTHON = REPO / ".venv-owui" / "bin" / "python"
ADMIN_EMAIL = "admin@sentinel.test"
ADMIN_PASSWORD = "correct horse battery staple"


def owui_environment(data_dir: Path) -> dict[str, str]:
    """Open WebUI offline (ENVIRONMENT.md): nothing it starts may reach for a hub or the internet."""
    return {
        **os.environ,
        "DATA_DIR": str(data_dir),
        "FROM_INIT_PY": "true",  # the pip package's frontend and static files, as `open-webui serve` sets it
        "OFFLINE_MODE": "true",
        "HF_HUB_OFFLINE": "1",
        "RAG_EMBEDDING_ENGINE": "openai",
        "WEBUI_SECRET_KEY": "sentinel-test-secret",
        "ENABLE_VERSION_UPDATE_CHECK": "false",
    }


@dataclass
class Server:
    url: str
    log: Path


def wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url} exited with {process.returncode}; log:\n{log.read_text()[-4000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{url} not healthy after {timeout_s} s; log:\n{log.read_text()[-4000:]}")


@contextmanager
def running(command: list[str], env: dict[str, str], port: int, log: Path, timeout_s: float) -> Iterator[Server]:
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT, cwd=REPO)
    try:
        wait_healthy(url, process, log, timeout_s)
        yield Server(url=url, log=log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def open_webui(
    data_dir: Path,
    openai_urls: list[str],
    ollama_urls: list[str],
    openai_keys: list[str] | None = None,
    max_tool_calls: int | None = None,
) -> Iterator[Server]:
    """A fresh Open WebUI with an admin account, API keys on, and the given model connections (``openai_keys``:
    one per URL, "none" where not given). ``max_tool_calls`` bounds the tool-call rounds of one turn: a small
    model may otherwise call tools until Open WebUI's own limit of 256."""
    port = free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {
        **owui_environment(data_dir),
        "WEBUI_ADMIN_EMAIL": ADMIN_EMAIL,
        "WEBUI_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "WEBUI_ADMIN_NAME": "Admin",
        "ENABLE_API_KEYS": "true",
        "ENABLE_SIGNUP": "false",
        "ENABLE_OPENAI_API": "true" if openai_urls else "false",
        "OPENAI_API_BASE_URLS": ";".join(openai_urls),
        "OPENAI_API_KEYS": ";".join(openai_keys or ["none" for _ in openai_urls]),
        "ENABLE_OLLAMA_API": "true" if ollama_urls else "false",
        "OLLAMA_BASE_URLS": ";".join(ollama_urls),
        # Background tasks would send the backend requests the test did not script.
        "ENABLE_TITLE_GENERATION": "false",
        "ENABLE_TAGS_GENERATION": "false",
        "ENABLE_FOLLOW_UP_GENERATION": "false",
        "ENABLE_AUTOCOMPLETE_GENERATION": "false",
        # as the stack runs it: no "What's New" dialog over the page on a first sign-in
        "DEFAULT_INTERFACE_SETTINGS": '{"showChangelog": false}',
    }
    if max_tool_calls is not None:
        env["CHAT_RESPONSE_MAX_TOOL_CALL_ITERATIONS"] = str(max_tool_calls)
    command = [str(OWUI_PYTHON), "-m", "uvicorn", "open_webui.main:app", "--host", "127.0.0.1", "--port", str(port)]
    # ~25 s alone; measured 3 min when the shared machine is loaded (load 16 on 2 cores)
    with running(command, env, port, data_dir / "open-webui.log", timeout_s=600) as server:
        yield server


@contextmanager
def sentinel_api(vault: Path, index: Path, keys_file: Path, log: Path, **extra_env: str) -> Iterator[Server]:
    """The real tool API service (``python -m services.api``) over ``vault``, accepting the keys in ``keys_file``
    (``extra_env``: more settings, e.g. the pool's backends, so its gateway serves a model)."""
    port = free_port()
    env = {
        **os.environ,
        "SENTINEL_VAULT": str(vault),
        "SENTINEL_INDEX_PATH": str(index),
        "SENTINEL_API_KEYS_FILE": str(keys_file),
        "SENTINEL_API_HOST": "127.0.0.1",
        "SENTINEL_API_PORT": str(port),
        **extra_env,
    }
    with running([sys.executable, "-m", "services.api"], env, port, log, timeout_s=120) as server:
        yield server


@contextmanager
def sentinel_api_serving(vault: Path, index: Path, keys_file: Path, log: Path, model_server: str) -> Iterator[Server]:
    """``sentinel_api`` as the stack runs it: its model gateway serves ``model_server`` (an OpenAI base up to
    /v1), registered by the API itself, under a Redis prefix of its own that is deleted afterwards, and it
    searches by meaning with the real e5 model (the stack's embedder)."""
    prefix = f"sentinel-owui-{uuid.uuid4().hex[:10]}:"
    pool = {
        "SENTINEL_EMBED_MODEL_DIR": str(E5_DIR),
        "SENTINEL_REDIS_PREFIX": prefix,
        "SENTINEL_POOL__NODE": "this-machine",
        "SENTINEL_POOL__BACKENDS": json.dumps([f"openai={model_server}"]),
        # the answer pipeline's model (POST /v1/ask), as the stack points it at its model server
        "SENTINEL_CONVERSATION__KIND": "openai",
        "SENTINEL_CONVERSATION__BASE_URL": model_server,
        "SENTINEL_CONVERSATION__MODEL": MODEL_ALIAS,
        "SENTINEL_CONVERSATION__NUM_CTX": "8192",
    }
    try:
        with sentinel_api(vault, index, keys_file, log, **pool) as server:
            yield server
    finally:
        client = Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(match=f"{prefix}*", count=500))
        if keys:
            client.delete(*keys)
        client.close()


@dataclass
class SentinelInOpenWebUI:
    """Open WebUI in front of the real tool API, whose gateway serves the real small Qwen."""

    owui: Server
    api: Server
    api_log: Path
    model_url: str = ""  # the llama.cpp server's OpenAI base (up to /v1)


@contextmanager
def sentinel_in_open_webui(
    work: Path, key: str, openai: Sequence[ChatBackend] = (), ollama: Sequence[ChatBackend] = ()
) -> Iterator[SentinelInOpenWebUI]:
    """The stack the Open WebUI tests and the tool-call bench run: a llama.cpp server with the small Qwen (ctx
    8192), ``sentinel_api_serving`` over ``work``/vault with the keys in ``work``/keys.json, the scripted backends,
    and a fresh Open WebUI whose connections are the ``openai`` backends, then the API's gateway (with ``key``),
    and the ``ollama`` backends. Two tool-call rounds at most: a 0.5B model may otherwise keep calling tools for
    many minutes."""
    with ExitStack() as running:
        llama = running.enter_context(llama_server(ctx=8192))
        api_log = work / "api.log"
        api = running.enter_context(
            sentinel_api_serving(work / "vault", work / "index.db", work / "keys.json", api_log, llama)
        )
        for backend in (*openai, *ollama):
            running.enter_context(backend)
        urls = [*(backend.root + "/v1" for backend in openai), api.url + "/v1"]
        keys = [*("none" for _ in openai), key]
        owui = running.enter_context(
            open_webui(work / "open-webui", urls, [b.root for b in ollama], openai_keys=keys, max_tool_calls=2)
        )
        yield SentinelInOpenWebUI(owui, api, api_log, llama)
