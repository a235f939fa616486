"""Schema changes on an index made by an earlier version: the search change log, vectors cut at 512 tokens."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sentinel.index import fold
from sentinel.index.db import connect
from sentinel.index.migrations import MIGRATIONS, migrate, transaction
from sentinel.index.sync import sync
from sentinel.settings import Settings
from sentinel.vault.hashes import chunk_hash


def _old_index(path: Path, version: int) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    fold.register(db)
    for migration in MIGRATIONS[:version]:
        with transaction(db):
            migration(db)
    db.execute(f"PRAGMA user_version = {version}")
    return db


def _vector_row(text_hash: str, truncated: int) -> tuple[object, ...]:
    return (text_hash, "Page", b"\x01" * 384, 0.01, 0, b"\x00" * 48, 600 if truncated else 100, truncated)


def test_every_search_write_logs_one_row_per_generation(tmp_path: Path) -> None:
    old = _old_index(tmp_path / "index.db", 5)
    old.close()
    db = connect(tmp_path / "index.db")
    with transaction(db):
        db.execute(
            """INSERT INTO pages (path, title, path_key, name_key, role, hash, mtime_ns, size, indexed_at)
               VALUES ('notes/a.md', 'a', 'notes/a', 'a', 'notes', 'h', 1, 1, 0)"""
        )
        db.execute(
            """INSERT INTO chunks (path, ordinal, trail, heading, text, text_hash, words)
               VALUES ('notes/a.md', 0, 'a', '', 'text', 'th', 1)"""
        )
        db.execute("INSERT INTO analysis (path, hash, status, analysed_at) VALUES ('notes/a.md', 'h', 'ok', 0)")
        db.execute(
            """INSERT INTO chunk_vectors (text_hash, trail, vec, scale, centre, bits, tokens, truncated)
               VALUES (?,?,?,?,?,?,?,?)""",
            _vector_row("th", 0),
        )
        db.execute(
            """INSERT INTO summary_vectors (text, vec, scale, centre, bits, tokens, truncated)
               VALUES ('a\n\nline', ?, 0.01, 0, ?, 10, 0)""",
            (b"\x01" * 384, b"\x00" * 48),
        )
        db.execute("DELETE FROM pages WHERE path = 'notes/a.md'")  # cascades to its chunk and analysis
    log = db.execute("SELECT gen, path, text_hash, passage FROM search_changes ORDER BY gen").fetchall()
    newest = db.execute("SELECT n FROM search_generation").fetchone()[0]
    assert [row[0] for row in log] == list(range(newest - len(log) + 1, newest + 1))  # one row per generation
    assert [(row[1], row[2], row[3]) for row in log] == [
        ("notes/a.md", None, None),  # the page
        ("notes/a.md", None, None),  # its chunk
        ("notes/a.md", None, None),  # its analysis
        (None, "th", None),  # the chunk vector, by what it embeds
        (None, None, "a\n\nline"),  # the summary vector, by its passage
        ("notes/a.md", None, None),  # the cascade: chunk, analysis, then the page
        ("notes/a.md", None, None),
        ("notes/a.md", None, None),
    ]


def test_vectors_cut_at_512_tokens_are_dropped_to_be_made_again(tmp_path: Path) -> None:
    old = _old_index(tmp_path / "index.db", 6)
    with transaction(old):
        old.executemany(
            """INSERT INTO chunk_vectors (text_hash, trail, vec, scale, centre, bits, tokens, truncated)
               VALUES (?,?,?,?,?,?,?,?)""",
            [_vector_row("whole", 0), _vector_row("cut", 1)],
        )
    assert migrate(old) == len(MIGRATIONS)
    assert [r[0] for r in old.execute("SELECT text_hash FROM chunk_vectors")] == ["whole"]


def test_an_index_before_entry_units_reads_every_page_again_and_keeps_its_date(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Chats").mkdir(parents=True)
    turns = "\n".join(f"- **{'Ana' if i % 2 else 'Sam'}:** turn {i} of a long chat about the boiler" for i in range(10))
    (vault / "Chats/2024-01-06 Ana.md").write_text(f"# Ana\n\n{turns}\n", encoding="utf-8")
    old = _old_index(tmp_path / "index.db", 7)
    with transaction(old):
        old.execute(
            """INSERT INTO pages (path, title, path_key, name_key, role, hash, mtime_ns, size, indexed_at)
               VALUES ('Chats/2024-01-06 Ana.md', 'a', 'chats/2024-01-06 ana', '2024-01-06 ana', 'other', 'h',
                       ?, ?, 0)""",
            (
                (vault / "Chats/2024-01-06 Ana.md").stat().st_mtime_ns,
                (vault / "Chats/2024-01-06 Ana.md").stat().st_size,
            ),
        )
        old.execute(
            """INSERT INTO chunks (path, ordinal, trail, heading, text, text_hash, words)
               VALUES ('Chats/2024-01-06 Ana.md', 0, 'a', '', 'one window of the whole chat', 'th', 6)"""
        )
    old.close()
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    db = connect(tmp_path / "index.db")
    report = sync(settings, db)
    assert report.updated == 1  # unchanged on disk, yet read again: its chunks are cut differently now
    assert db.execute("SELECT date FROM pages").fetchone()[0] == "2024-01-06"
    assert db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == 10  # one unit per turn


def test_an_index_cut_by_words_gets_its_long_paragraphs_cut_between_lines_and_keeps_the_rest(tmp_path: Path) -> None:
    """An index made before m014 holds a long list paragraph cut every 120 words (an item split, its line breaks
    lost); unchanged on disk, the page is read again and cut between its items, and a page whose units did not
    change keeps its vector (nothing is embedded again for it)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    items = [f"- Step {i}: {' '.join(['word'] * 28)}." for i in range(6)]
    (vault / "list.md").write_text("\n".join(items) + "\n", encoding="utf-8")
    (vault / "short.md").write_text("A short page that no cut touches.\n", encoding="utf-8")
    old = _old_index(tmp_path / "index.db", 13)
    tokens = "\n".join(items).split()
    old_units = [" ".join(tokens[:120]), " ".join(tokens[120:])]
    with transaction(old):
        for name, texts in (("list", old_units), ("short", ["A short page that no cut touches."])):
            stat = (vault / f"{name}.md").stat()
            old.execute(
                """INSERT INTO pages (path, title, path_key, name_key, role, hash, mtime_ns, size, indexed_at)
                   VALUES (?, ?, ?, ?, 'other', 'h', ?, ?, 0)""",
                (f"{name}.md", name, name, name, stat.st_mtime_ns, stat.st_size),
            )
            old.executemany(
                """INSERT INTO chunks (path, ordinal, trail, heading, text, text_hash, words)
                   VALUES (?, ?, ?, '', ?, ?, ?)""",
                [(f"{name}.md", i, name, t, chunk_hash(t), len(t.split())) for i, t in enumerate(texts)],
            )
        old.execute(
            """INSERT INTO chunk_vectors (text_hash, trail, vec, scale, centre, bits, tokens, truncated)
               VALUES (?,?,?,?,?,?,?,?)""",
            (chunk_hash("A short page that no cut touches."), "short", b"\x01" * 384, 0.01, 0, b"\x00" * 48, 9, 0),
        )
    old.close()
    settings = Settings(vault=vault, index_path=tmp_path / "index.db", _env_file=None)
    db = connect(tmp_path / "index.db")
    assert sync(settings, db).updated == 2  # unchanged on disk, both read again
    got = [r[0] for r in db.execute("SELECT text FROM chunks WHERE path = 'list.md' ORDER BY ordinal")]
    assert got == ["\n".join(items[:3]), "\n".join(items[3:])]
    kept = db.execute("SELECT c.text FROM chunks c JOIN chunk_vectors v USING (text_hash, trail)").fetchall()
    assert [r[0] for r in kept] == ["A short page that no cut touches."]


def test_an_index_that_ran_the_reverted_lemma_step_is_folded_again_and_read_again(tmp_path: Path) -> None:
    """Round twenty's m014 (reverted) left indexes at version 14 with full-text rows in a fold the query side no
    longer makes; m015 refills them with today's fold and marks every page to be read again (m014's mark, which
    such an index skipped)."""
    old = _old_index(tmp_path / "index.db", 14)
    with transaction(old):
        old.execute(
            """INSERT INTO pages (path, title, path_key, name_key, role, hash, mtime_ns, size, indexed_at)
               VALUES ('a.md', 'a', 'a', 'a', 'other', 'h', 5, 1, 0)"""
        )
        old.execute(
            """INSERT INTO chunks (path, ordinal, trail, heading, text, text_hash, words)
               VALUES ('a.md', 0, 'Çalışma alanı', '', 'Çalışma alanını kaydedin', 'th', 3)"""
        )
    terms = "SELECT term FROM chunks_vocab ORDER BY term"
    today = old.execute(terms).fetchall()
    with transaction(old):  # what the lemma fold wrote in today's rows' place
        old.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")
        old.execute(
            "INSERT INTO chunks_fts(rowid, text, trail) SELECT id, 'calis alan kaydet', 'calis alan' FROM chunks"
        )
    assert old.execute(terms).fetchall() != today
    old.close()
    db = connect(tmp_path / "index.db")
    assert [tuple(r) for r in db.execute(terms)] == [tuple(r) for r in today]
    assert db.execute("SELECT mtime_ns FROM pages").fetchone()[0] == -1
