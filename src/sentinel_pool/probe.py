"""What a node agent reads off its machine: each backend's models (available, loaded), slots, and free VRAM.

Ollama says which models it has (``/api/tags``) and which are in memory (``/api/ps``). An OpenAI-compatible
server lists its models (``/v1/models``); llama.cpp's server also says (``/props``) whether it has unloaded its
model to sleep and how many slots it has. Its ``/slots`` (which slots are processing) is never read: it runs as a
task, which wakes a sleeping server and resets its idle timer, so an agent probing it would keep the model
loaded forever. How busy a backend is comes from the jobs the pool itself has in flight there. A server that is
neither is taken to keep what it lists loaded, since there is no standard way to ask. Free VRAM: ``vram``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import httpx

from sentinel_pool.registry import BackendKind, BackendRecord

KINDS: tuple[BackendKind, ...] = ("ollama", "openai")


class BackendSpecInvalid(ValueError):
    """A ``kind=url`` backend setting that cannot be used; the message says how to write it."""


@dataclass(frozen=True)
class BackendSpec:
    """One backend as configured on the agent: ``ollama=<server root>`` or ``openai=<base up to /v1>``."""

    kind: BackendKind
    url: str

    @classmethod
    def parse(cls, text: str) -> BackendSpec:
        kind, sep, url = text.partition("=")
        kind, url = kind.strip().lower(), url.strip().rstrip("/")
        if not sep or kind not in KINDS or not url.startswith(("http://", "https://")):
            raise BackendSpecInvalid(
                f"backend {text!r} is not kind=url: write 'ollama=http://host:11434' (Ollama's root) or "
                "'openai=http://host:8080/v1' (an OpenAI-compatible base up to /v1)"
            )
        return cls(cast(BackendKind, kind), url)

    @property
    def openai_base(self) -> str:
        """Where OpenAI-shaped requests go (Ollama serves that API under /v1 too)."""
        return f"{self.url}/v1" if self.kind == "ollama" else self.url

    @property
    def root(self) -> str:
        return self.url.removesuffix("/v1")


def probe_backend(http: httpx.Client, spec: BackendSpec) -> BackendRecord:
    """The backend as it is now; a failed probe is a record with ``problem`` set (it gets no requests)."""
    try:
        if spec.kind == "ollama":
            return _probe_ollama(http, spec)
        return _probe_openai(http, spec)
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
        problem = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return BackendRecord(url=spec.openai_base, kind=spec.kind, problem=problem)


def _get(http: httpx.Client, url: str) -> Any:
    response = http.get(url)
    response.raise_for_status()
    return response.json()


def _names(entries: list[dict[str, Any]]) -> list[str]:
    return sorted({str(entry.get("name") or entry["model"]) for entry in entries})


def _probe_ollama(http: httpx.Client, spec: BackendSpec) -> BackendRecord:
    available = _names(_get(http, f"{spec.root}/api/tags").get("models") or [])
    loaded = _names(_get(http, f"{spec.root}/api/ps").get("models") or [])
    return BackendRecord(url=spec.openai_base, kind="ollama", models=available, loaded=loaded)


def _probe_openai(http: httpx.Client, spec: BackendSpec) -> BackendRecord:
    listed = _get(http, f"{spec.openai_base}/models").get("data") or []
    available = sorted({str(entry["id"]) for entry in listed})
    record = BackendRecord(url=spec.openai_base, kind="openai", models=available, loaded=available)
    props = http.get(f"{spec.root}/props")
    if props.status_code != 200:  # not llama.cpp: nothing more to learn
        return record
    details = props.json()
    record.slots = details.get("total_slots")
    if details.get("is_sleeping"):
        record.loaded = []
    return record
