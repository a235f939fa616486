"""The one interface every embedder offers (in-process ONNX, HTTP client of the embedder service).

Callers never add e5's ``query: `` / ``passage: `` prefixes themselves: they say which ``kind`` a text is and
the in-process engine adds the prefix (the HTTP service runs that same engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from sentinel.errors import BadInput, Unavailable

EmbedKind = Literal["query", "passage"]
EMBED_KINDS: tuple[EmbedKind, ...] = ("query", "passage")


@dataclass(frozen=True)
class ModelIdentity:
    """What produced a vector. Vectors of two identities must never be mixed in one index."""

    name: str
    dims: int
    file_hash: str  # sha256 of the ONNX file, first 16 hex digits


@dataclass
class Embedding:
    """Vectors for a list of texts, in the order given, and what the model saw of each text."""

    vectors: np.ndarray  # (n, dims) float32, L2-normalised
    truncated: list[bool]  # True: the text had more tokens than the engine reads (e5: 8 windows of 512); the rest
    # was not embedded
    tokens: list[int]  # tokens of prefix + text + specials, counted before truncation


class Embedder(Protocol):
    @property
    def identity(self) -> ModelIdentity:
        """The model behind the vectors (the HTTP client asks the service on first use)."""
        ...

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> Embedding:
        """Vectors for ``texts`` in order; raises EmbedderUnavailable when the engine cannot serve."""
        ...


class EmbedderUnavailable(Unavailable, RuntimeError):
    """The embedder cannot serve: service unreachable or failing, model files missing, runtime not installed."""


class ModelChanged(EmbedderUnavailable):
    """The service now runs another model than the one this client started with: its vectors would not mix."""


class EmbedRequestInvalid(BadInput, ValueError):
    """What was asked cannot be embedded as asked (a kind no engine knows, more texts than the service takes): the
    in-process engine and the service's client raise the same."""


def check_embed_input(texts: object, kind: object) -> None:
    """Reject input the engines cannot embed, naming what is wrong (never a crash deep inside the runtime)."""
    if kind not in EMBED_KINDS:
        raise EmbedRequestInvalid(f"embedding kind must be 'query' or 'passage', got {kind!r}")
    if isinstance(texts, str) or not isinstance(texts, list | tuple):
        raise TypeError(f"texts must be a list of strings, got {type(texts).__name__}")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a string, got {type(text).__name__}")
