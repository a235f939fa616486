"""Which embedder the settings ask for: the HTTP service, the in-process engine, or none."""

from __future__ import annotations

from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.embed.http import HttpEmbedder
from sentinel.settings import Settings


def embedder_from_settings(settings: Settings) -> Embedder | None:
    """``embedder_url`` set: the service (no I/O until first use). Else ``embed_model_dir`` set: the model loaded
    in this process (raises EmbedderUnavailable naming a missing file). Else None: no semantic search."""
    if settings.embedder_url:
        return HttpEmbedder(settings.embedder_url, timeout_s=settings.embed_timeout_s, batch=settings.embed_batch)
    if settings.embed_model_dir is None:
        return None
    try:
        from sentinel.embed.onnx import OnnxEmbedder  # onnxruntime is the optional 'onnx' extra
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"in-process embedding needs onnxruntime and tokenizers ({exc}): pip install 'sentinel[onnx]'"
        ) from exc
    return OnnxEmbedder(
        settings.embed_model_dir,
        threads=settings.embed_threads,
        batch=settings.embed_batch,
        model_file=settings.embed_model_file,
    )
