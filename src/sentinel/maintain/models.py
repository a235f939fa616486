"""The model roles the pass uses: extraction (concepts, definitions, name questions) and summary."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sentinel.embed.base import Embedder
from sentinel.providers import ChatProvider, provider_for
from sentinel.settings import Settings


@dataclass(frozen=True)
class Models:
    extraction: ChatProvider
    summary: ChatProvider  # reads long pages whole; the extraction provider when no summary role is set
    label: str  # recorded with each analysis: which model(s) produced it


def models_from_settings(settings: Settings) -> Models:
    """Providers for the two analysis roles; the summary role falls back to extraction when it has no model."""
    extraction = provider_for(settings.extraction, "extraction")
    if not settings.summary.model.strip():
        return Models(extraction, extraction, settings.extraction.model)
    summary = provider_for(settings.summary, "summary")
    return Models(extraction, summary, f"{settings.extraction.model} + summary {settings.summary.model}")


def embedder_from_settings(settings: Settings) -> Callable[[], Embedder] | None:
    """How the pass gets its embedder: in-process ONNX from ``embed_model_dir``; None when none is configured."""
    model_dir = settings.embed_model_dir
    if model_dir is None:
        return None

    def load() -> Embedder:
        from sentinel.embed.onnx import OnnxEmbedder  # ONNX Runtime is the onnx extra: imported on use

        return OnnxEmbedder(model_dir, threads=settings.embed_threads, batch=settings.embed_batch)

    return load
