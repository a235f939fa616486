"""Real HTTP servers on loopback for tests: uvicorn in a thread on a free port, stopped at exit."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(app: Any, health: str = "/health", timeout: float = 30.0, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve an ASGI app on ``host`` (loopback unless a test's own network namespace needs another) until the
    block ends; yields its base URL once ``health`` answers."""
    port = free_port(host)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://{host}:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(url + health, timeout=1).status_code < 500:
                break
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"server on {url} did not answer {health} within {timeout} s")
        time.sleep(0.05)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def hung_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A server that accepts connections and never answers (a wedged node, a stalled Open WebUI); yields its
    ``/v1`` URL and the connections it accepted."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", accepted
    finally:
        stop.set()
        thread.join(5)
        for connection in accepted:
            connection.close()
        listener.close()
