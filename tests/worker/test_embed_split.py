"""An embedding run split across real Celery workers (real Redis, real e5 in each worker), the API over real HTTP
storing what they send back: the index equals the in-process run's, two workers both take batches, a second
run is refused while one goes, no worker is 503 naming the fix, a worker killed mid-batch loses nothing, and no
worker log carries vault text.

Redis: database 12 and a key prefix unique to each test (tests/support/worker_stack.py).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.search import embed_pending
from sentinel.search.embedding import chunk_passage
from services.api.app import create_app
from services.common.embed_split import main as split_client
from services.common.tasks import EMBED_QUEUE
from tests.search.conftest import EVAL_SLICE
from tests.search.test_embed_jobs import vector_tables
from tests.support.embedder import E5_DIR
from tests.support.eval_data import eval_vault_path
from tests.support.servers import free_port, serve
from tests.support.worker_stack import WorkerStack

pytestmark = pytest.mark.slow
# the workers embed as the session's e5 fixture does (2 threads, batches of 32), so their vectors are its vectors
EMBEDDING = {"SENTINEL_EMBED_MODEL_DIR": str(E5_DIR), "SENTINEL_EMBED_THREADS": "2", "SENTINEL_EMBED_BATCH": "32"}


def slice_files() -> dict[str, str]:
    root = eval_vault_path()
    return {rel: (root / rel).read_text(encoding="utf-8").rstrip("\n") for rel in EVAL_SLICE}


def embed_worker(built: WorkerStack, name: str, *extra: str) -> Any:
    return built.start("worker", "--pool", "solo", "-Q", EMBED_QUEUE, "-n", f"{name}@%h", "--without-mingle",
                       "--without-gossip", "--loglevel", "INFO", *extra, name=name)  # fmt: skip


def ready(count: int) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda events: sum(e.get("event") == "embedder-ready" for e in events) >= count


class Api:
    def __init__(self, url: str, key: str) -> None:
        self.url, self.key, self.headers = url, key, {"Authorization": f"Bearer {key}"}

    def client(self) -> int:
        return split_client(["--url", self.url, "--key", self.key, "--poll-s", "0.2"])

    def start(self, **params: Any) -> httpx.Response:
        return httpx.post(f"{self.url}/v1/embed", params=params, headers=self.headers, timeout=60)

    def progress(self) -> dict[str, Any]:
        answer = httpx.get(f"{self.url}/v1/embed", headers=self.headers, timeout=30)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def ended(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (now := self.progress())["state"] != "running":
                return now
            time.sleep(0.5)
        raise AssertionError(f"the run did not end in {timeout:.0f} s: {self.progress()}")


@contextmanager
def api_on(built: WorkerStack) -> Iterator[Api]:
    settings = built.settings.model_copy(update={"embed_model_dir": E5_DIR, "embed_threads": 2, "embed_batch": 32})
    db = open_index(settings)
    sync(settings, db)  # indexed before the API starts: no start-up backlog for its watcher to embed in process
    db.close()
    _, key = create_key(keys_path(settings), Scope.WRITE, "test")
    with serve(create_app(settings)) as url:
        yield Api(url, key)


def in_process_tables(built: WorkerStack, e5: OnnxEmbedder) -> dict[str, list[tuple[object, ...]]]:
    """The same vault indexed and embedded in this process: what the split run must have made."""
    settings = built.settings.model_copy(update={"index_path": built.logs.parent / "in-process.db"})
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    tables = vector_tables(db)
    db.close()
    return tables


def split_tables(built: WorkerStack) -> dict[str, list[tuple[object, ...]]]:
    db = open_index(built.settings)
    tables = vector_tables(db)
    db.close()
    return tables


def passages_of(built: WorkerStack) -> list[str]:
    db = open_index(built.settings)
    rows = db.execute("SELECT trail, text FROM chunks").fetchall()
    db.close()
    return [chunk_passage(trail, text) for trail, text in rows]


@pytest.mark.timeout(600)
def test_two_workers_make_the_in_process_index_and_log_no_vault_text(
    worker_stack: Callable[..., WorkerStack], e5: OnnxEmbedder
) -> None:
    built = worker_stack(slice_files(), **EMBEDDING)
    embed_worker(built, "embed-a")
    embed_worker(built, "embed-b", "--loglevel", "DEBUG")  # not even a debug line carries a batch's text
    built.wait_for(ready(2), 120, "two workers ready to embed")
    with api_on(built) as api:
        started = api.start()
        assert started.status_code == 202, started.text
        assert started.json()["batches"]["total"] >= 3 and len(started.json()["workers"]) == 2
        ended = api.ended(400)
    assert ended["state"] == "finished", ended
    assert ended["page_vectors"]["done"] == ended["page_vectors"]["total"] > 0
    assert ended["chunks"]["done"] == ended["chunks"]["total"] > 0
    assert len(ended["batches_by_worker"]) == 2, ended  # both machines' stand-ins took batches
    # where each embedded: this machine's onnxruntime has no CUDA, so each says the CPU, in the run and its log
    assert ended["providers_by_worker"] == {worker: ["CPUExecutionProvider"] for worker in ended["batches_by_worker"]}
    assert split_tables(built) == in_process_tables(built, e5)
    logs = "\n".join(log.read_text(errors="replace") for log in built.logs.glob("embed-*.log"))
    assert logs.count("taking embedding batches on CPUExecutionProvider; self-check worst cosine 0.9") == 2, logs
    assert "batch embedded" in logs and "(run " in logs  # the batches were logged, by number
    for passage in passages_of(built):
        for line in passage.splitlines():
            if len(line.strip()) >= 24:  # the line of a passage, not a word that may appear anywhere
                assert line.strip() not in logs, f"a worker log carries vault text: {line!r}"


@pytest.mark.timeout(600)
def test_no_worker_is_503_and_a_second_run_is_409(
    worker_stack: Callable[..., WorkerStack], capsys: pytest.CaptureFixture[str]
) -> None:
    built = worker_stack(slice_files(), **EMBEDDING)
    no_model = embed_worker(built, "embed-none")  # a worker with no usable embedder takes no batch
    no_model_env = {**built.env, "SENTINEL_EMBED_MODEL_DIR": str(built.logs / "no-model-here")}
    built.processes.remove(no_model)
    no_model.send_signal(signal.SIGTERM)
    no_model.wait(timeout=30)
    built.env = no_model_env
    embed_worker(built, "embed-none")
    built.wait_for(lambda ev: any(e.get("event") == "no-embedder" for e in ev), 120, "the worker saying why")
    with api_on(built) as api:
        refused = api.start()
        assert refused.status_code == 503 and "make embed workers=N" in refused.json()["detail"], refused.text
        assert api.progress() == {"state": "idle"}
        assert api.client() == 1 and "make embed workers=N" in capsys.readouterr().err  # the client says why
        built.env = {**no_model_env, **EMBEDDING}
        embed_worker(built, "embed-a")
        built.wait_for(ready(1), 120, "a worker ready to embed")
        assert api.start().status_code == 202
        second = api.start()
        assert second.status_code == 409 and "GET /v1/embed" in second.json()["detail"], second.text
        assert api.client() == 1 and "(409)" in capsys.readouterr().err
        assert api.ended(400)["state"] == "finished"
        assert api.client() == 0  # nothing left: a run of no batches, finished at once
        assert "finished: 0 page vectors and 0 chunks" in capsys.readouterr().err


def test_the_client_names_make_up_when_no_api_answers(capsys: pytest.CaptureFixture[str]) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    assert split_client(["--url", closed, "--key", "k"]) == 2
    assert "start the stack with `make up`" in capsys.readouterr().err


@pytest.mark.timeout(600)
def test_a_worker_killed_mid_batch_loses_nothing(worker_stack: Callable[..., WorkerStack], e5: OnnxEmbedder) -> None:
    built = worker_stack(slice_files(), **EMBEDDING, SENTINEL_TASK_REDELIVER_S="5")
    doomed = embed_worker(built, "embed-doomed")
    built.wait_for(ready(1), 120, "a worker ready to embed")
    with api_on(built) as api:
        assert api.start().status_code == 202
        # the second batch received: the worker is embedding it, unacknowledged (acks_late)
        received = built.logs / "embed-doomed.log"
        deadline = time.monotonic() + 120
        while received.read_text(errors="replace").count(" received") < 2:
            assert time.monotonic() < deadline, received.read_text(errors="replace")[-3000:]
            time.sleep(0.05)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(timeout=30)
        assert api.progress()["state"] == "running"
        embed_worker(built, "embed-after")
        ended = api.ended(400)
    assert ended["state"] == "finished", ended
    assert "embed-after" in " ".join(ended["batches_by_worker"]), ended  # it took the killed worker's batch on
    assert split_tables(built) == in_process_tables(built, e5)
