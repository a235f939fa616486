"""A real HTTP server on loopback that answers from a test's function and records every request.

For servers that cannot run here (Ollama: no registry ships it) or behaviours a real server will not show on
cue (an endpoint that refuses a field, omits usage). The function gets the recorded request and returns
``(status, json_body)``.

    with HttpStub(lambda request: (200, {...})) as stub:
        httpx.post(f"{stub.url}/api/chat", json=...)
        stub.requests[0].body
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None for an empty body


Responder = Callable[[RecordedRequest], tuple[int, Any]]


class _StubServer(ThreadingHTTPServer):
    """Answers never outlive the stub: ``server_close`` waits for every answer in flight.

    The stdlib default answers on daemon threads nobody waits for. A slow answer to a client that already gave
    up (a timeout test, a killed worker) then failed during some later test and printed its traceback into
    whatever ``sys.stderr`` was there: once into a CLI's captured ``--json`` output. A client gone away is
    what those tests expect, so it is not reported; any other error still is.
    """

    daemon_threads = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class HttpStub:
    def __init__(self, respond: Responder, port: int = 0) -> None:
        self.requests: list[RecordedRequest] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                request = RecordedRequest(
                    method=self.command,
                    path=self.path,
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=json.loads(raw) if raw else None,
                )
                stub.requests.append(request)
                status, body = respond(request)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        self._server = _StubServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> HttpStub:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
