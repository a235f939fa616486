"""bench/clone_vault.py's SQL-cloned index is what the real sync makes of the cloned files (issue 37's 1M run
searches such a clone): table by table, the full-text index's terms included, and each copy's vectors its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench import clone_vault, search_latency
from bench.synth_vault import generate
from sentinel.embed.base import ModelIdentity
from sentinel.index.db import connect, open_index
from sentinel.index.sync import sync
from sentinel.search.embedding import summary_passages
from sentinel.settings import Settings

# every column the indexer writes from a page's text and file, ids and the time of indexing apart
COMPARED = {
    "pages": "path, title, path_key, name_key, role, frontmatter, description, hash, mtime_ns, size, problem, date",
    "chunks": "path, ordinal, trail, heading, text, text_hash, words, kind",
    "headings": "path, ordinal, level, text, line",
    "links": "source, target, target_key, target_base, heading, display, kind, line, places, resolved",
    "aliases": "path, alias, alias_key",
    "tags": "path, tag",
    "analysis": "path, hash, status, summary, concepts, reason, model",
    "chunks_vocab": "term, doc, cnt",  # the full-text index, term by term
}


def _rows(db: sqlite3.Connection, table: str) -> list[tuple[object, ...]]:
    return sorted((tuple(row) for row in db.execute(f"SELECT {COMPARED[table]} FROM {table}")), key=repr)


def test_a_cloned_index_is_what_a_real_sync_of_the_cloned_vault_makes(tmp_path: Path) -> None:
    source = Settings(vault=tmp_path / "source", index_path=tmp_path / "source.db", _env_file=None)
    generate(source.vault, 60)
    db = open_index(source)
    sync(source, db)
    db.close()
    search_latency._fill_vectors(source, ModelIdentity("synthetic", 384, "0" * 16))
    out = tmp_path / "clone"
    args = ["--vault", str(source.vault), "--index", str(source.index_path), "--out", str(out)]
    assert clone_vault.main([*args, "--copies", "2", "--search"]) == 0  # it syncs the clone: nothing to do

    cloned = connect(out / "index.db", readonly=True)
    real = Settings(vault=out / "vault", index_path=tmp_path / "real.db", _env_file=None)
    made = open_index(real)
    sync(real, made)
    assert cloned.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 180
    for table in COMPARED:
        assert _rows(cloned, table) == _rows(made, table), table

    unembedded = """SELECT COUNT(*) FROM chunks c LEFT JOIN chunk_vectors v
                    ON v.text_hash = c.text_hash AND v.trail = c.trail WHERE v.id IS NULL"""
    assert cloned.execute(unembedded).fetchone()[0] == 0
    stored = {text for (text,) in cloned.execute("SELECT text FROM summary_vectors")}
    assert set(summary_passages(cloned)) <= stored
    chunks = cloned.execute("SELECT COUNT(*) FROM chunk_vectors WHERE trail LIKE 'c2 %'").fetchone()[0]
    alike = """SELECT COUNT(*) FROM chunk_vectors a JOIN chunk_vectors b
               ON b.text_hash = a.text_hash AND b.trail = 'c2 ' || a.trail WHERE a.bits = b.bits"""
    assert chunks > 500 and cloned.execute(alike).fetchone()[0] == 0  # a copy's vectors are not its source's
