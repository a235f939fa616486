"""The loader names the file that is missing (no model needed for these)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sentinel.embed.base import EmbedderUnavailable
from sentinel.embed.factory import embedder_from_settings
from sentinel.embed.http import HttpEmbedder
from sentinel.embed.onnx import locate_model_files
from sentinel.settings import Settings


def test_missing_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match=r"directory .*nowhere does not exist.*make models"):
        locate_model_files(tmp_path / "nowhere")


def test_missing_model_file_names_both_layouts(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(EmbedderUnavailable) as caught:
        locate_model_files(tmp_path)
    assert str(tmp_path / "onnx" / "model.onnx") in str(caught.value)
    assert str(tmp_path / "model.onnx") in str(caught.value)


def test_missing_tokenizer_is_named(tmp_path: Path) -> None:
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "model.onnx").write_bytes(b"")
    with pytest.raises(EmbedderUnavailable, match=r"tokenizer file missing: expected .*tokenizer\.json"):
        locate_model_files(tmp_path)


def test_an_explicit_model_file_is_the_only_candidate(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"")
    (tmp_path / "tokenizer.json").write_text("{}")
    assert locate_model_files(tmp_path).model == tmp_path / "model.onnx"
    with pytest.raises(EmbedderUnavailable, match=r"model_fp32\.onnx"):
        locate_model_files(tmp_path, "model_fp32.onnx")


def test_factory_picks_http_then_in_process_then_none(tmp_path: Path) -> None:
    http = embedder_from_settings(Settings(embedder_url="http://127.0.0.1:9", _env_file=None))
    assert isinstance(http, HttpEmbedder) and http.base_url == "http://127.0.0.1:9"
    assert embedder_from_settings(Settings(_env_file=None)) is None
    with pytest.raises(EmbedderUnavailable, match="does not exist"):
        embedder_from_settings(Settings(embed_model_dir=tmp_path / "absent", _env_file=None))
