"""The embedder service as a real process on a loopback port, for tests and benches.

with embedder_service(model_dir) as service:
    HttpEmbedder(service.url) ...
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.servers import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
E5_DIR = REPO_ROOT / "models" / "multilingual-e5-small"


@dataclass(frozen=True)
class EmbedderProcess:
    url: str
    pid: int
    log: Path  # the service's stderr: its JSON log lines


@contextmanager
def embedder_service(
    model_dir: Path,
    log: Path,
    *,
    threads: int = 2,
    batch: int = 32,
    model_file: str = "",
    port: int = 0,
    timeout: float = 120.0,
) -> Iterator[EmbedderProcess]:
    """Run `uvicorn services.embedder.app:app` until the block ends (on ``port``, else a free one); yields once
    /health answers."""
    port = port or free_port()
    env = {
        **os.environ,
        "SENTINEL_EMBED_MODEL_DIR": str(model_dir),
        "SENTINEL_EMBED_MODEL_FILE": model_file,
        "SENTINEL_EMBED_THREADS": str(threads),
        "SENTINEL_EMBED_BATCH": str(batch),
        "OPENBLAS_NUM_THREADS": "1",
    }
    command = [sys.executable, "-m", "uvicorn", "services.embedder.app:app", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--no-access-log"]
    with log.open("ab") as log_file:
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log_file, stderr=log_file)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"embedder service did not come up on {url}; its log:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        yield EmbedderProcess(url=url, pid=process.pid, log=log)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
