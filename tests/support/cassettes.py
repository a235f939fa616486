"""Recorded exchanges with a real model server, replayed from files (the shape of simonw/llm's cassettes): a
provider test that needs what a real server answers reads it from ``tests/support/cassettes/<name>.json``
instead of a reply written by hand, and runs in milliseconds without the server.

Each file holds the request the provider really sent and the server's status and JSON answer, recorded through
a loopback proxy in front of the small Qwen on llama.cpp. Record them again (after a llama.cpp or model update,
or a change of what the provider sends) with ``python -m tests.support.cassettes``; the replay tests still pass
against any faithful recording, because they read their expectations from the recording.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from sentinel.providers import ProviderError, provider_for
from sentinel.settings import ProviderSettings
from tests.support.http_stub import HttpStub, RecordedRequest

HOME = Path(__file__).resolve().parent / "cassettes"
SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "concepts": {"type": "array", "items": {"type": "string"}}},
    "required": ["summary", "concepts"],
}
PAGE = (
    "Obsidian Sync is a paid add-on service that keeps a vault identical across devices. It encrypts notes "
    "end to end, keeps version history for each file, and lets several people share one remote vault."
)
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the user's notes by meaning and wording.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}


@dataclass(frozen=True)
class Cassette:
    name: str
    path: str  # the request's path, as the provider sent it
    request: Any  # the JSON body the provider sent
    status: int
    response: Any  # the server's JSON answer

    def respond(self, request: RecordedRequest) -> tuple[int, Any]:
        """The recorded answer, for ``HttpStub``."""
        return self.status, self.response


def load(name: str) -> Cassette:
    data = json.loads((HOME / f"{name}.json").read_text(encoding="utf-8"))
    return Cassette(name, data["path"], data["request"], data["status"], data["response"])


# name -> what the provider is asked (the exchange recorded is whatever it sends and the server answers)
EXCHANGES: dict[str, Callable[[ProviderSettings], object]] = {
    "llama_json_schema": lambda role: provider_for(role).chat(
        [
            {"role": "system", "content": "Answer with JSON: a one-sentence summary and the concepts named."},
            {"role": "user", "content": PAGE},
        ],
        json_schema=SCHEMA,
        max_tokens=200,
    ),
    "llama_tool_call": lambda role: provider_for(role).chat(
        [{"role": "user", "content": "Search my notes for how Obsidian Sync handles version history."}],
        tools=[SEARCH_TOOL],
        max_tokens=120,
    ),
    "llama_context_exceeded": lambda role: provider_for(role).chat(
        [{"role": "user", "content": PAGE * 120}], max_tokens=4
    ),
}


def record(base_url: str, role: ProviderSettings) -> None:
    """Run every exchange through a proxy in front of the real server at ``base_url`` and write its file."""
    HOME.mkdir(exist_ok=True)
    root = base_url.removesuffix("/v1")
    answers: list[tuple[int, Any]] = []

    def forward(request: RecordedRequest) -> tuple[int, Any]:
        answer = httpx.request(request.method, root + request.path, json=request.body, timeout=600)
        answers.append((answer.status_code, answer.json()))
        return answers[-1]

    with HttpStub(forward) as proxy:
        for name, exchange in EXCHANGES.items():
            with contextlib.suppress(ProviderError):  # an error answer is what some exchanges record
                exchange(role.model_copy(update={"base_url": f"{proxy.url}/v1"}))
            request, (status, response) = proxy.requests[-1], answers[-1]
            body = {"path": request.path, "request": request.body, "status": status, "response": response}
            text = json.dumps(body, ensure_ascii=False, indent=1) + "\n"
            (HOME / f"{name}.json").write_text(text, encoding="utf-8")
            print(f"recorded {name}: {status}")


def main() -> None:
    from tests.support.llama import LLAMA_CTX, MODEL_ALIAS, llama_server

    with llama_server(ctx=LLAMA_CTX) as url:
        record(url, ProviderSettings(kind="openai", base_url=url, model=MODEL_ALIAS, num_ctx=LLAMA_CTX))


if __name__ == "__main__":
    main()
