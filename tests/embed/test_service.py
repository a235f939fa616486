"""The embedder service as a real process on loopback: same vectors as in-process, identity, logs, failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest

from sentinel.embed.base import EmbedderUnavailable, EmbedRequestInvalid, ModelChanged
from sentinel.embed.http import HttpEmbedder
from sentinel.embed.onnx import OnnxEmbedder
from tests.support.embedder import REPO_ROOT, EmbedderProcess, embedder_service
from tests.support.servers import free_port

pytestmark = pytest.mark.slow

TEXTS = [
    "Başka bir nottaki bir başlığa nasıl bağlantı verebilirim?",
    "How do I link to a heading in another note?",
    "Wie verlinke ich auf eine Überschrift in einer anderen Notiz?",
    "¿Cómo enlazo a un encabezado de otra nota?",
    " ".join(["long"] * 700),  # past 512 tokens: read in two windows
    " ".join(["long"] * 4000),  # past the last window: cut
]


def log_lines(service: EmbedderProcess) -> list[dict[str, object]]:
    return [json.loads(line) for line in service.log.read_text().splitlines() if line.startswith("{")]


def test_http_vectors_equal_in_process_vectors(service: EmbedderProcess, onnx_embedder: OnnxEmbedder) -> None:
    client = HttpEmbedder(service.url, batch=32)
    for kind in ("query", "passage"):
        remote = client.embed(TEXTS, kind)
        local = onnx_embedder.embed(TEXTS, kind)
        assert np.array_equal(remote.vectors, local.vectors)
        assert remote.vectors.dtype == np.float32
        assert remote.truncated == local.truncated == [False, False, False, False, False, True]
        assert remote.tokens == local.tokens
    assert client.embed([], "query").vectors.shape == (0, 384)


def test_health_reports_the_same_identity_as_in_process(service: EmbedderProcess, onnx_embedder: OnnxEmbedder) -> None:
    health = httpx.get(service.url + "/health", timeout=60).json()
    assert health["status"] == "ok" and health["model_file"] == "model.onnx" and health["threads"] == 2
    assert HttpEmbedder(service.url).identity == onnx_embedder.identity


def test_every_request_logs_one_json_line_with_its_request_id(service: EmbedderProcess) -> None:
    answer = httpx.post(
        service.url + "/embed",
        json={"texts": TEXTS, "kind": "passage"},
        headers={"X-Request-ID": "probe-7"},
        timeout=120,
    )
    assert answer.headers["x-request-id"] == "probe-7"
    fresh = httpx.get(service.url + "/health", timeout=60).headers["x-request-id"]
    lines = log_lines(service)
    (embed_line,) = [line for line in lines if line.get("request_id") == "probe-7"]
    assert embed_line["path"] == "/embed" and embed_line["status"] == 200
    assert embed_line["texts"] == 6 and embed_line["truncated"] == 1 and embed_line["kind"] == "passage"
    assert embed_line["service"] == "embedder" and isinstance(embed_line["ms"], float)  # the API's shape
    assert fresh and not [line for line in lines if line.get("request_id") == fresh]  # health stays quiet at INFO
    (started,) = [line for line in lines if line.get("event") == "started"]
    check = started["self_check"]
    assert started["identity"]["dims"] == 384 and check["worst_cosine"] >= check["floor"]


def test_bad_requests_get_a_named_422(service: EmbedderProcess) -> None:
    wrong_kind = httpx.post(service.url + "/embed", json={"texts": ["x"], "kind": "document"}, timeout=60)
    assert wrong_kind.status_code == 422 and "'query' or 'passage'" in wrong_kind.text
    too_many = ["x"] * 1025
    with pytest.raises(EmbedRequestInvalid, match="1025 texts in one request; the limit is 1024"):
        HttpEmbedder(service.url, batch=2000).embed(too_many, "query")


def test_unreachable_service_raises_unavailable_naming_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(EmbedderUnavailable, match=f"{url} cannot be reached"):
        HttpEmbedder(url).embed(["x"], "query")


def test_a_service_restarted_with_another_model_is_refused(e5_dir: Path, tmp_path: Path) -> None:
    port = free_port()
    with embedder_service(e5_dir, tmp_path / "int8.log", port=port) as first:
        client = HttpEmbedder(first.url)
        client.embed(["x"], "query")
    fp32 = embedder_service(e5_dir, tmp_path / "fp32.log", port=port, model_file="model_fp32.onnx")
    with fp32, pytest.raises(ModelChanged, match="must not mix"):
        client.embed(["x"], "query")


def test_service_without_model_exits_naming_the_missing_file(tmp_path: Path) -> None:
    env = {"SENTINEL_EMBED_MODEL_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    env |= {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}  # this checkout's code
    command = [sys.executable, "-m", "uvicorn", "services.embedder.app:app", "--port", str(free_port())]
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    lines = [json.loads(line) for line in (done.stdout + done.stderr).splitlines() if line.startswith("{")]
    failure = [line for line in lines if line.get("event") == "startup_failed"]
    assert failure and str(tmp_path / "model.onnx") in str(failure[0]["error"])
