"""The real multilingual-e5-small model (a plugin of the root conftest): one instance per test session for every
area that embeds, and an oracle that computes a vector with no Sentinel code."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from tokenizers import Tokenizer

from sentinel.embed.onnx import OnnxEmbedder, locate_model_files
from tests.support.embedder import E5_DIR


@pytest.fixture(scope="session")
def e5() -> OnnxEmbedder:
    """The real model; a missing model fails, naming `make models` (CI builds it via `make test-prereqs`)."""
    locate_model_files(E5_DIR)
    return OnnxEmbedder(E5_DIR, threads=2, batch=32)


def raw_e5_vector(model_dir: Path, full_text: str) -> np.ndarray:
    """Oracle: the tokenizer's own template and a bare ONNX Runtime session, no Sentinel code.
    ``full_text`` must carry the e5 prefix already."""
    files = locate_model_files(model_dir)
    ids = np.array([Tokenizer.from_file(str(files.tokenizer)).encode(full_text).ids], dtype=np.int64)
    session = ort.InferenceSession(str(files.model), providers=["CPUExecutionProvider"])
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    wanted = {i.name for i in session.get_inputs()}
    hidden = session.run(None, {k: v for k, v in feeds.items() if k in wanted})[0][0]
    pooled = hidden.mean(axis=0)
    return (pooled / np.linalg.norm(pooled)).astype(np.float32)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
