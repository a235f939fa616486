"""Client of the embedder service (services/embedder): the same vectors as in-process, over HTTP.

It asks the service which model it runs on first use and checks every answer against that identity, so a
service restarted with another model can never slip a second model's vectors into the same index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from sentinel.embed.base import (
    EmbedderUnavailable,
    Embedding,
    EmbedKind,
    EmbedRequestInvalid,
    ModelChanged,
    ModelIdentity,
    check_embed_input,
)

CONNECT_TIMEOUT_S = 3.0  # a service that is down should be noticed quickly: search falls back to lexical


class HttpEmbedder:
    def __init__(self, base_url: str, *, timeout_s: float = 120.0, batch: int = 32) -> None:
        if batch < 1:
            raise ValueError(f"embed batch must be >= 1, got {batch}")
        self.base_url = base_url.rstrip("/")
        self.batch = batch
        self._client = httpx.Client(base_url=self.base_url, timeout=httpx.Timeout(timeout_s, connect=CONNECT_TIMEOUT_S))
        self._identity: ModelIdentity | None = None

    @property
    def identity(self) -> ModelIdentity:
        if self._identity is None:
            self._identity = _identity_from(self._call("GET", "/health"))
        return self._identity

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> Embedding:
        check_embed_input(texts, kind)
        expected = self.identity
        vectors: list[list[float]] = []
        truncated: list[bool] = []
        tokens: list[int] = []
        for start in range(0, len(texts), self.batch):
            answer = self._call("POST", "/embed", {"texts": list(texts[start : start + self.batch]), "kind": kind})
            served = _identity_from(answer)
            if served != expected:
                raise ModelChanged(
                    f"the embedder at {self.base_url} now runs {served}, not {expected} as when this client "
                    "started: vectors of two models must not mix; re-embed everything for the new model"
                )
            vectors.extend(answer["vectors"])
            truncated.extend(answer["truncated"])
            tokens.extend(answer["tokens"])
        array = np.asarray(vectors, dtype=np.float32).reshape(len(texts), expected.dims)
        return Embedding(vectors=array, truncated=truncated, tokens=tokens)

    def close(self) -> None:
        self._client.close()

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            response = self._client.request(method, path, json=payload)
        except httpx.TransportError as exc:
            raise EmbedderUnavailable(
                f"the embedder service at {self.base_url} cannot be reached ({type(exc).__name__}: {exc}); "
                "start it (docker compose up embedder) or unset SENTINEL_EMBEDDER_URL to embed in-process"
            ) from exc
        if response.status_code == 422:
            raise EmbedRequestInvalid(f"the embedder service rejected the request: {_detail(response)}")
        if response.is_error:
            raise EmbedderUnavailable(
                f"the embedder service at {self.base_url} answered {response.status_code} to {method} {path}: "
                f"{_detail(response)}"
            )
        body: dict[str, Any] = response.json()
        return body


def _identity_from(answer: dict[str, Any]) -> ModelIdentity:
    model = answer["model"]
    return ModelIdentity(name=model["name"], dims=int(model["dims"]), file_hash=model["file_hash"])


def _detail(response: httpx.Response) -> str:
    try:
        return str(response.json().get("detail", response.text))
    except ValueError:
        return response.text[:500]
