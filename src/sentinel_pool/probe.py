"""What a node agent reads off its machine: each backend's models (available, loaded), slots, and free VRAM.

What a backend says about itself is its kind's to ask (``sentinel.providers.servers``: Ollama's ``/api/tags``
and ``/api/ps``; an OpenAI-compatible server's ``/models`` and llama.cpp's ``/props``). How busy a backend is
comes from the jobs the pool itself has in flight there. Free VRAM: ``vram``.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from sentinel.providers.servers import ModelServer, kind_names, server_kind
from sentinel_pool.registry import BackendRecord


class BackendSpecInvalid(ValueError):
    """A ``kind=url`` backend setting that cannot be used; the message says how to write it."""


@dataclass(frozen=True)
class BackendSpec(ModelServer):
    """One backend as configured on the agent: ``<kind>=<url>``, e.g. ``ollama=<server root>`` or
    ``openai=<base up to /v1>``."""

    @classmethod
    def parse(cls, text: str) -> BackendSpec:
        kind, sep, url = text.partition("=")
        kind, url = kind.strip().lower(), url.strip().rstrip("/")
        if not sep or kind not in kind_names() or not url.startswith(("http://", "https://")):
            ways = " or ".join(server_kind(name).describe for name in kind_names())
            raise BackendSpecInvalid(f"backend {text!r} is not kind=url: write {ways}")
        return cls(kind, url)


def probe_backend(http: httpx.Client, spec: BackendSpec) -> BackendRecord:
    """The backend as it is now; a failed probe is a record with ``problem`` set (it gets no requests)."""
    try:
        seen = spec.probe(http)
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
        problem = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return BackendRecord(url=spec.openai_base, kind=spec.kind, problem=problem)
    return BackendRecord(url=spec.openai_base, kind=spec.kind, models=seen.models, loaded=seen.loaded, slots=seen.slots)
