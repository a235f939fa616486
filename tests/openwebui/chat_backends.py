"""A real HTTP chat backend on loopback for Open WebUI that plays a script (where a test must force the calls).

``ChatBackend`` speaks both shapes Open WebUI connects to: OpenAI's (``/v1/models``, ``/v1/chat/completions``,
streamed as server-sent events) and Ollama's (``/api/tags``, ``/api/chat``, streamed as JSON lines). What it
answers comes from ``respond(request body)``: a tool call or a final text. It records every chat request.

- ``scripted``: plays fixed tool calls in order, then an answer. The end-to-end test checks what Sentinel and
  Open WebUI do with tool calls, not which call a model would choose, so the calls are forced. The step is
  derived from the request itself (tool results since the last user message): no conversation state.

The real model needs no test front: Open WebUI talks to the product's own gateway (the API's pool routes, with
the tool-call repair layer) in front of llama.cpp (test_end_to_end.py).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


Reply = ToolCall | str


@dataclass
class ChatBackend:
    model: str
    respond: Callable[[dict[str, Any]], Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def root(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ChatBackend:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def tool_requests(self) -> list[dict[str, Any]]:
        """Chat requests that offered tools (Open WebUI's background tasks, if any, offer none)."""
        return [body for body in self.requests if body.get("tools")]


def tool_results_this_turn(messages: list[dict[str, Any]]) -> int:
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return sum(1 for m in messages[last_user + 1 :] if m.get("role") == "tool")


def scripted(model: str, calls: list[ToolCall], answer: str) -> ChatBackend:
    def respond(body: dict[str, Any]) -> Reply:
        done = tool_results_this_turn(body.get("messages", []))
        return calls[done] if done < len(calls) else answer

    return ChatBackend(model, respond)


def _handler_for(backend: ChatBackend) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: pytest shows failures, not traffic
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._json({"object": "list", "data": [{"id": backend.model, "object": "model", "owned_by": "test"}]})
            elif self.path == "/api/tags":
                self._json({"models": [{"name": backend.model, "model": backend.model, "size": 1, "details": {}}]})
            elif self.path == "/api/version":
                self._json({"version": "0.12.0"})
            else:
                self._json({"error": f"no route {self.path}"}, 404)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            backend.requests.append(body)
            step = backend.respond(body)
            if self.path.rstrip("/") in ("/v1/chat/completions", "/chat/completions"):
                self._openai(body, step)
            elif self.path == "/api/chat":
                self._ollama(step)
            else:
                self._json({"error": f"no route {self.path}"}, 404)

        def _openai(self, body: dict[str, Any], step: ToolCall | str) -> None:
            if isinstance(step, ToolCall):
                call = {
                    "index": 0,
                    "id": f"call_{len(backend.requests)}",
                    "type": "function",
                    "function": {"name": step.name, "arguments": json.dumps(step.arguments)},
                }
                delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
                finish = "tool_calls"
            else:
                delta, finish = {"role": "assistant", "content": step}, "stop"
            if not body.get("stream"):
                message = {k: v for k, v in delta.items() if k != "tool_calls"}
                if isinstance(step, ToolCall):
                    message["tool_calls"] = [{k: v for k, v in call.items() if k != "index"}]
                choice = {"index": 0, "message": message, "finish_reason": finish}
                self._json({"id": "x", "object": "chat.completion", "model": backend.model, "choices": [choice]})
                return
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": int(time.time()), "model": backend.model}
            events = [
                {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            ]
            self._stream("text/event-stream", [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"])

        def _ollama(self, step: ToolCall | str) -> None:
            message: dict[str, Any] = {"role": "assistant", "content": ""}
            if isinstance(step, ToolCall):
                message["tool_calls"] = [{"function": {"name": step.name, "arguments": step.arguments}}]
            else:
                message["content"] = step
            stamp = {"model": backend.model, "created_at": "2026-01-01T00:00:00Z"}
            last = {
                **stamp,
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": "stop",
                "total_duration": 1,
                "load_duration": 1,
                "prompt_eval_count": 1,
                "prompt_eval_duration": 1,
                "eval_count": 1,
                "eval_duration": 1,
            }
            lines = [json.dumps({**stamp, "message": message, "done": False}) + "\n", json.dumps(last) + "\n"]
            self._stream("application/x-ndjson", lines)

        def _json(self, value: Any, status: int = 200) -> None:
            data = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, content_type: str, parts: list[str]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in parts:
                data = part.encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")

    return Handler
