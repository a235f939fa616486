"""Fixtures over the real multilingual-e5-small model that `make models` prepares (never a stand-in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sentinel.embed.onnx import OnnxEmbedder, locate_model_files
from tests.support.embedder import E5_DIR, EmbedderProcess, embedder_service


@pytest.fixture(scope="session")
def e5_dir() -> Path:
    """The model directory; a missing model fails (CI builds it through `make test-prereqs`)."""
    locate_model_files(E5_DIR)  # raises EmbedderUnavailable naming the missing file and `make models`
    return E5_DIR


@pytest.fixture(scope="session")
def onnx_embedder(e5_dir: Path) -> OnnxEmbedder:
    return OnnxEmbedder(e5_dir, threads=2, batch=32)


@pytest.fixture(scope="session")
def service(e5_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbedderProcess]:
    """The embedder service as its own process on a loopback port, same model, threads and batch."""
    with embedder_service(e5_dir, tmp_path_factory.mktemp("embedder") / "service.log", threads=2, batch=32) as s:
        yield s
