"""Schema changes as an ordered list of functions; ``PRAGMA user_version`` records how many have run. The
first three (the tables a new index starts with) are ``first_schema``'s; the steps here change what they made."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sentinel.index import fold
from sentinel.index.first_schema import m001_core, m002_search, m003_maintain, run_script

Migration = Callable[[sqlite3.Connection], None]


def _chunk_fts_triggers(folded: Callable[[str, str], str]) -> str:
    """The triggers that keep ``chunks_fts`` in step with ``chunks``, each column as ``folded(column, row)``
    gives it (``row``: ``new.`` or ``old.``); m004 and m011 each made them with the fold of their day."""
    return f"""
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, text, trail) VALUES (new.id, {folded("text", "new.")},
                {folded("trail", "new.")});
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text, trail) VALUES ('delete', old.id,
                {folded("text", "old.")}, {folded("trail", "old.")});
        END;"""


def m004_one_fold(db: sqlite3.Connection) -> None:
    """The chunk triggers fold text with ``sentinel_fold`` (``sentinel.index.fold``), the function the query
    side folds with; m001's triggers folded only ``ı``/``İ``, which the query did not, so every chunk is
    indexed again."""
    run_script(
        db,
        f"""
        DROP TRIGGER chunks_ai;
        DROP TRIGGER chunks_ad;
        {_chunk_fts_triggers(lambda column, row: f"{fold.SQL_FUNCTION}({row}{column})")}
        """,
    )
    fold.rebuild_fts(db)


def m005_reread_links(db: sqlite3.Connection) -> None:
    """Pages are parsed for links as Obsidian reads them (relative markdown links, none in ``%% comments %%``,
    property links): the next sync reads every page again (unchanged text keeps its vectors and analysis)."""
    db.execute("UPDATE pages SET mtime_ns = -1")


# m006's change log: every search-relevant row change bumps the generation and records what it touched
_LOGGED = {
    # trigger name: (event, table, what is logged as (path, text_hash, trail, passage))
    "search_gen_chunk_ins": ("INSERT", "chunks", "new.path, NULL, NULL, NULL"),
    "search_gen_chunk_del": ("DELETE", "chunks", "old.path, NULL, NULL, NULL"),
    "search_gen_page_ins": ("INSERT", "pages", "new.path, NULL, NULL, NULL"),
    "search_gen_page_upd": ("UPDATE", "pages", "new.path, NULL, NULL, NULL"),
    "search_gen_page_del": ("DELETE", "pages", "old.path, NULL, NULL, NULL"),
    "search_gen_analysis_ins": ("INSERT", "analysis", "new.path, NULL, NULL, NULL"),
    "search_gen_analysis_upd": ("UPDATE", "analysis", "new.path, NULL, NULL, NULL"),
    "search_gen_analysis_del": ("DELETE", "analysis", "old.path, NULL, NULL, NULL"),
    "search_gen_chunk_vec_ins": ("INSERT", "chunk_vectors", "NULL, new.text_hash, new.trail, NULL"),
    "search_gen_chunk_vec_del": ("DELETE", "chunk_vectors", "NULL, old.text_hash, old.trail, NULL"),
    "search_gen_summary_vec_ins": ("INSERT", "summary_vectors", "NULL, NULL, NULL, new.text"),
    "search_gen_summary_vec_del": ("DELETE", "summary_vectors", "NULL, NULL, NULL, old.text"),
}
SEARCH_CHANGES_KEPT = 20_000  # a search view further behind than this many changes is rebuilt whole


def m006_search_changes(db: sqlite3.Connection) -> None:
    """A log of what each generation changed, so a search process updates its view in place (re-reading
    only the pages named) instead of rebuilding it from every vector in the index (9.7 s at 94,791 vectors).

    Each trigger bumps the generation and writes exactly one row for the new number. A generation with no row
    (a bump made by code: new language centres, a re-embed) is a change the log cannot describe: the view is
    then rebuilt. Old rows are pruned as the log grows.
    """
    triggers = []
    for name, (event, table, values) in _LOGGED.items():
        triggers.append(f"""
        DROP TRIGGER IF EXISTS {name};
        CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN
            UPDATE search_generation SET n = n + 1;
            INSERT INTO search_changes (gen, path, text_hash, trail, passage) SELECT n, {values} FROM search_generation;
        END;""")
    run_script(
        db,
        f"""
        CREATE TABLE search_changes (
            gen INTEGER PRIMARY KEY,       -- the search_generation.n this change made: one row per generation
            path TEXT,                     -- a page whose rows (page, chunks, analysis) changed
            text_hash TEXT,                -- a chunk vector added or dropped (chunks.text_hash, chunks.trail)
            trail TEXT,
            passage TEXT                   -- a summary vector added or dropped (summary_vectors.text)
        );
        CREATE TRIGGER search_gen_page_moved AFTER UPDATE OF path ON pages WHEN old.path <> new.path BEGIN
            UPDATE search_generation SET n = n + 1;
            INSERT INTO search_changes (gen, path) SELECT n, old.path FROM search_generation;
        END;
        CREATE TRIGGER search_changes_prune AFTER INSERT ON search_changes WHEN new.gen % 1000 = 0 BEGIN
            DELETE FROM search_changes WHERE gen <= new.gen - {SEARCH_CHANGES_KEPT};
        END;
        {"".join(triggers)}
        """,
    )


def m007_reembed_cut_passages(db: sqlite3.Connection) -> None:
    """Vectors of passages that were cut at e5's 512 tokens are dropped: the embedder now reads a long passage
    in windows (``sentinel.embed.onnx``), so the next embedding run makes them again from the whole text. A
    passage past every window is cut again, and kept then."""
    db.execute("DELETE FROM chunk_vectors WHERE truncated = 1")
    db.execute("DELETE FROM summary_vectors WHERE truncated = 1")


def m008_entry_units_and_dates(db: sqlite3.Connection) -> None:
    """Pages of many short entries are cut one entry a chunk (``sentinel.vault.entries``) and a page's date
    (frontmatter, title, else the file's) is kept with it and shown with its passages: ``pages.date`` is new
    and every page is read again at the next sync (its chunks change; unchanged passages keep their vectors).
    ``chunks.kind`` says which units are entries: a page made of them has no summary in its first lines."""
    db.execute("ALTER TABLE pages ADD COLUMN date TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE chunks ADD COLUMN kind TEXT NOT NULL DEFAULT 'window'")
    db.execute("UPDATE pages SET mtime_ns = -1")


def m009_chunk_units_index(db: sqlite3.Connection) -> None:
    """Chunks are looked up by page with their order and kind from the index alone: the search's window count
    per page and its "first unit is an entry" check read ``kind`` for ~300 pages a query, a table row each
    without this (100k synthetic pages: 7.4-9.9 and 4.5 ms CPU a query; 1.6-1.8 and 0.9 ms with it). It
    serves every lookup by path, so it replaces ``chunks_path`` (2.6 s to build at 950k chunks)."""
    db.execute("DROP INDEX IF EXISTS chunks_path")
    db.execute("CREATE INDEX chunks_path_units ON chunks(path, ordinal, kind)")


def m010_overlapping_windows(db: sqlite3.Connection) -> None:
    """Prose windows are 120 words, each opening with the last short paragraph of the one before (issue 32,
    round five): every page is read again at the next sync; units whose text and trail did not change keep
    their vectors, the rest are embedded again (about a sixth of the eval vault's units)."""
    db.execute("UPDATE pages SET mtime_ns = -1")


def m011_word_stems(db: sqlite3.Connection) -> None:
    """Each chunk keeps the language its words are folded in (``fold.page_language``, decided when it is
    written), and the triggers fold with it: German, Spanish and Turkish words are stemmed (issue 32, round six),
    so every chunk is indexed again."""
    db.execute("ALTER TABLE chunks ADD COLUMN language TEXT NOT NULL DEFAULT ''")
    run_script(
        db,
        f"""
        DROP TRIGGER chunks_ai;
        DROP TRIGGER chunks_ad;
        CREATE TEMP TABLE page_language (path TEXT PRIMARY KEY, language TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO temp.page_language {fold.page_languages("chunks")};
        UPDATE chunks SET language = (SELECT language FROM temp.page_language p WHERE p.path = chunks.path);
        DROP TABLE temp.page_language;
        {_chunk_fts_triggers(fold.chunk_fold)}
        """,
    )
    fold.rebuild_fts(db)


def m012_chunk_language_index(db: sqlite3.Connection) -> None:
    """The chunks of each language are counted from an index (the lexical leg counts a word common among its
    query's language's chunks, ``search.lexical.language_rows``, once per index change): without it the count
    reads every chunk row (10k synthetic pages, 104k chunks: 65-88 ms CPU; 8 ms with it; built in 88 ms CPU)."""
    db.execute("CREATE INDEX chunks_language ON chunks(language)")


def m013_table_rows(db: sqlite3.Connection) -> None:
    """A pipe table is cut between its rows, each piece under its header, and an entry run's table reads the same
    separator ("|-|-|" too; ``vault.tables``): before, a short table longer than a window was cut by words, its line
    breaks and header lost (stop 51). Every page is read again at the next sync; units whose text and trail did not
    change keep their vectors (on the eval vault, the tables of five pages are cut anew)."""
    db.execute("UPDATE pages SET mtime_ns = -1")


def m014_long_paragraphs_by_lines(db: sqlite3.Connection) -> None:
    """A paragraph longer than a window is cut between lines, then sentences, never inside a link, its line breaks
    kept (``vault.entries._cut``): before, it was cut every ``chunk_words`` words, mid-item and mid-link (stop 54).
    Every page is read again at the next sync, as m013 did; units whose text and trail did not change keep their
    vectors (on the eval vault, the units of 19 paragraphs are cut anew)."""
    db.execute("UPDATE pages SET mtime_ns = -1")


def m015_after_the_reverted_lemmas(db: sqlite3.Connection) -> None:
    """Round twenty's ``m014_word_lemmas`` ran on main between 29885cc and f618fcb and was reverted: an index it
    upgraded is at version 14, its full-text rows folded to lemmas the query side no longer makes, and it would skip
    ``m014_long_paragraphs_by_lines``. Every chunk is indexed again with today's fold and every page read again;
    on any other index this repeats m014's mark and refills the full-text rows once (nothing is embedded again)."""
    fold.rebuild_fts(db)
    db.execute("UPDATE pages SET mtime_ns = -1")


MIGRATIONS: list[Migration] = [
    m001_core,
    m002_search,
    m003_maintain,
    m004_one_fold,
    m005_reread_links,
    m006_search_changes,
    m007_reembed_cut_passages,
    m008_entry_units_and_dates,
    m009_chunk_units_index,
    m010_overlapping_windows,
    m011_word_stems,
    m012_chunk_language_index,
    m013_table_rows,
    m014_long_paragraphs_by_lines,
    m015_after_the_reverted_lemmas,
]


def migrate(db: sqlite3.Connection) -> int:
    """Run every migration not yet applied, each in its own transaction. Returns the schema version."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        with transaction(db):
            migration(db)
            db.execute(f"PRAGMA user_version = {number}")
    return len(MIGRATIONS)


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction, taken immediately so concurrent writers queue instead of failing mid-way."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        # SQLite has already rolled back after some errors (a full disk): a second ROLLBACK would hide the cause
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
