"""A run cut into batches (sentinel.search.embed_jobs) stores exactly what the in-process run stores, with the real
e5: same rows, ids, vectors, centres. Here the batches are embedded in this process and travel through ``pack`` /
``unpack`` as a worker's answer does; tests/worker/test_embed_split.py runs them on real Celery workers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sentinel.embed.base import ModelIdentity
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.errors import BadInput
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import VectorsFromAnotherModel, embed_pending
from sentinel.search.embed_jobs import SplitRun, WorkerModelDiffers, pack, unpack
from sentinel.search.embedding import identity_record
from sentinel.settings import Settings
from tests.search.conftest import EVAL_SLICE
from tests.support.eval_data import copy_pages

pytestmark = pytest.mark.slow
TABLES = {
    "chunk_vectors": "id, text_hash, trail, vec, scale, centre, bits, tokens, truncated",
    "summary_vectors": "id, text, vec, scale, centre, bits, tokens, truncated",
}


def vector_tables(db: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    """Every stored vector row (ids, keys, the int8 bytes, scale, centre, sign bits) and the centres and identity."""
    rows = {table: db.execute(f"SELECT {cols} FROM {table} ORDER BY id").fetchall() for table, cols in TABLES.items()}
    rows["meta"] = db.execute("SELECT key, value FROM meta WHERE key LIKE '%centres%' OR key = 'embed_model' "
                              "ORDER BY key").fetchall()  # fmt: skip
    return rows


def indexed(root: Path) -> sqlite3.Connection:
    settings = Settings(vault=root.parent / "vault", index_path=root / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    return db


@pytest.fixture
def two_indexes(tmp_path: Path) -> tuple[sqlite3.Connection, sqlite3.Connection]:
    copy_pages(EVAL_SLICE, tmp_path / "vault")
    return indexed(tmp_path / "a"), indexed(tmp_path / "b")


def test_batches_stored_in_order_make_the_in_process_index(
    two_indexes: tuple[sqlite3.Connection, sqlite3.Connection], e5: OnnxEmbedder
) -> None:
    in_process, split_db = two_indexes
    counts = embed_pending(in_process, e5)
    run = SplitRun.plan(split_db, e5.identity)
    tables = [batch.table for batch in run.batches]
    assert tables == sorted(tables, reverse=True) and tables[0] == "summary_vectors"  # page vectors first
    assert tables.count("chunk_vectors") >= 2  # the chunk table's first batch makes its centres, the others join
    for batch in run.batches:
        embedding, made_by = unpack(pack(e5.embed(batch.passages, "passage"), e5.identity))
        run.store(split_db, batch.number, embedding, made_by)
        if batch.table == "chunk_vectors":
            assert run.progress()["page_vectors"] == {"done": counts.summaries, "total": counts.summaries}
    ended = run.end(split_db)
    assert (ended.chunks, ended.summaries, ended.truncated) == (counts.chunks, counts.summaries, counts.truncated)
    assert vector_tables(split_db) == vector_tables(in_process)
    assert run.progress()["batches"] == {"done": len(run.batches), "total": len(run.batches)}
    assert SplitRun.plan(split_db, e5.identity).batches == []  # nothing left: a second run sends nothing


def test_a_batch_out_of_order_or_from_another_model_is_refused(
    two_indexes: tuple[sqlite3.Connection, sqlite3.Connection], e5: OnnxEmbedder
) -> None:
    _, db = two_indexes
    run = SplitRun.plan(db, e5.identity)
    first, second = run.batches[0], run.batches[1]
    embedding, made_by = unpack(pack(e5.embed(second.passages, "passage"), e5.identity))
    with pytest.raises(BadInput, match="batch 0 is next, not 1"):
        run.store(db, 1, embedding, made_by)
    other = identity_record(ModelIdentity("another-model", 384, "0123456789abcdef"))
    embedding, _ = unpack(pack(e5.embed(first.passages, "passage"), e5.identity))
    with pytest.raises(WorkerModelDiffers, match="another-model"):
        run.store(db, 0, embedding, other)
    with pytest.raises(BadInput, match="vectors came"):
        run.store(db, 0, unpack(pack(e5.embed(first.passages[:1], "passage"), e5.identity))[0], made_by)
    assert run.stored == 0 and db.execute("SELECT COUNT(*) FROM summary_vectors").fetchone()[0] == 0
    with pytest.raises(BadInput, match="still to be stored"):
        run.end(db)


def test_a_run_refuses_an_index_of_another_model(
    two_indexes: tuple[sqlite3.Connection, sqlite3.Connection], e5: OnnxEmbedder
) -> None:
    db, _ = two_indexes
    embed_pending(db, e5)
    other = ModelIdentity("another-model", 384, "0123456789abcdef")
    with pytest.raises(VectorsFromAnotherModel, match="--reembed"):
        SplitRun.plan(db, other)
    again = SplitRun.plan(db, other, reembed=True)  # the explicit way: every vector goes, all is pending again
    assert sum(len(b.jobs) for b in again.batches) == sum(len(b.jobs) for b in SplitRun.plan(db, other).batches)
    assert db.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0] == 0
