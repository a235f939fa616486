"""The index's first schema: the steps that made a new index before any later change (``migrations``
runs them first, then its own steps, which alter what these made). They never change: an index at schema
version 3 was made by exactly these. ``run_script`` is what every step writes multi-statement SQL with."""

from __future__ import annotations

import sqlite3


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Execute a multi-statement script inside the caller's transaction (``executescript`` would commit it)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip():
        raise ValueError(f"incomplete SQL statement in migration: {statement.strip()[:80]}")


def m001_core(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE pages (
            path TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            path_key TEXT NOT NULL,        -- lower-cased path without .md: what exact-path links compare
            name_key TEXT NOT NULL,        -- lower-cased file name without .md: what basename links compare
            role TEXT NOT NULL,
            frontmatter TEXT NOT NULL DEFAULT '{}',
            description TEXT NOT NULL DEFAULT '',
            hash TEXT NOT NULL,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            problem TEXT,                  -- why the page was indexed partially or not at all
            indexed_at REAL NOT NULL
        );
        CREATE INDEX pages_name_key ON pages(name_key);
        CREATE INDEX pages_path_key ON pages(path_key);
        CREATE INDEX pages_role ON pages(role);

        CREATE TABLE aliases (
            path TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
            alias TEXT NOT NULL,
            alias_key TEXT NOT NULL
        );
        CREATE INDEX aliases_key ON aliases(alias_key);
        CREATE INDEX aliases_path ON aliases(path);

        CREATE TABLE tags (
            path TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
            tag TEXT NOT NULL
        );
        CREATE INDEX tags_tag ON tags(tag);
        CREATE INDEX tags_path ON tags(path);

        CREATE TABLE links (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
            target TEXT NOT NULL,          -- as written, without heading and .md
            target_key TEXT NOT NULL,      -- see sentinel.vault.links.link_key
            target_base TEXT NOT NULL,     -- last component of target_key
            heading TEXT,
            display TEXT NOT NULL,
            kind TEXT NOT NULL,            -- wikilink | embed | markdown | attachment
            line INTEGER NOT NULL,
            places INTEGER NOT NULL,       -- 1 when the source's role feeds the graph and growth queue
            resolved TEXT                  -- the page it reaches, NULL while it reaches none
        );
        CREATE INDEX links_source ON links(source);
        CREATE INDEX links_target_key ON links(target_key);
        CREATE INDEX links_target_base ON links(target_base);
        CREATE INDEX links_resolved ON links(resolved);

        CREATE TABLE headings (
            path TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            level INTEGER NOT NULL,
            text TEXT NOT NULL,
            line INTEGER NOT NULL
        );
        CREATE INDEX headings_path ON headings(path);

        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            trail TEXT NOT NULL,
            heading TEXT NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            words INTEGER NOT NULL
        );
        CREATE INDEX chunks_path ON chunks(path);
        CREATE INDEX chunks_text_hash ON chunks(text_hash);

        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text, trail, content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
        );
        -- Replaced by m004 (one fold for index and query: sentinel.index.fold).
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, text, trail) VALUES (
                new.id, replace(replace(new.text, 'ı', 'i'), 'İ', 'I'),
                replace(replace(new.trail, 'ı', 'i'), 'İ', 'I'));
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text, trail) VALUES (
                'delete', old.id, replace(replace(old.text, 'ı', 'i'), 'İ', 'I'),
                replace(replace(old.trail, 'ı', 'i'), 'İ', 'I'));
        END;

        -- The analysis pass's output: one row per page, valid while hash equals pages.hash.
        CREATE TABLE analysis (
            path TEXT PRIMARY KEY REFERENCES pages(path) ON DELETE CASCADE,
            hash TEXT NOT NULL,
            status TEXT NOT NULL,          -- ok | failed
            summary TEXT NOT NULL DEFAULT '',
            concepts TEXT NOT NULL DEFAULT '[]',
            reason TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL DEFAULT '',
            analysed_at REAL NOT NULL
        );

        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    )


def m002_search(db: sqlite3.Connection) -> None:
    """Vectors for the search ladder, and a counter that tells a search process its cached view is stale.

    Vector tables have no foreign key to chunks or pages on purpose: they are keyed by what was embedded, so
    an index rebuild (new chunk ids, same text) finds every vector again instead of re-embedding.
    """
    run_script(
        db,
        """
        CREATE TABLE chunk_vectors (
            id INTEGER PRIMARY KEY,
            text_hash TEXT NOT NULL,       -- chunks.text_hash
            trail TEXT NOT NULL,           -- chunks.trail: embedded together with the text
            vec BLOB NOT NULL,             -- int8 components; times scale gives the unit vector
            scale REAL NOT NULL,
            centre INTEGER NOT NULL,       -- the language centre it is compared from (see search.centres)
            bits BLOB NOT NULL,            -- signs of the vector minus that centre (see search.vectors)
            tokens INTEGER NOT NULL,       -- tokens the model counted; over its limit only the head was read
            truncated INTEGER NOT NULL,
            UNIQUE (text_hash, trail)
        );

        CREATE TABLE summary_vectors (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL UNIQUE,     -- exactly the passage embedded for a page's summary line
            vec BLOB NOT NULL,
            scale REAL NOT NULL,
            centre INTEGER NOT NULL,
            bits BLOB NOT NULL,
            tokens INTEGER NOT NULL,
            truncated INTEGER NOT NULL
        );

        -- Bumped by every change a search cache depends on; a search compares it to its cached copy.
        CREATE TABLE search_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
        INSERT INTO search_generation (id, n) VALUES (1, 0);
        CREATE TRIGGER search_gen_chunk_ins AFTER INSERT ON chunks BEGIN
            UPDATE search_generation SET n = n + 1;
        END;
        CREATE TRIGGER search_gen_chunk_del AFTER DELETE ON chunks BEGIN
            UPDATE search_generation SET n = n + 1;
        END;
        CREATE TRIGGER search_gen_page_ins AFTER INSERT ON pages BEGIN
            UPDATE search_generation SET n = n + 1;
        END;
        CREATE TRIGGER search_gen_page_upd AFTER UPDATE ON pages BEGIN
            UPDATE search_generation SET n = n + 1;
        END;
        CREATE TRIGGER search_gen_page_del AFTER DELETE ON pages BEGIN
            UPDATE search_generation SET n = n + 1;
        END;
        CREATE TRIGGER search_gen_analysis_ins AFTER INSERT ON analysis BEGIN
            UPDATE search_generation SET n = n + 1;
        END;
        CREATE TRIGGER search_gen_analysis_upd AFTER UPDATE ON analysis BEGIN
            UPDATE search_generation SET n = n + 1;
        END;
        CREATE TRIGGER search_gen_analysis_del AFTER DELETE ON analysis BEGIN
            UPDATE search_generation SET n = n + 1;
        END;

        CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
        """,
    )


def m003_maintain(db: sqlite3.Connection) -> None:
    """What the maintenance pass remembers between runs, so it neither re-asks settled questions nor scans
    every analysis to answer the health line."""
    run_script(
        db,
        """
        -- The concepts each page's current analysis kept (a copy of analysis.concepts, one row per name).
        CREATE TABLE concept_mentions (
            path TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
            concept TEXT NOT NULL,
            concept_key TEXT NOT NULL      -- links.link_key of the name: comparable with links.target_key
        );
        CREATE INDEX concept_mentions_key ON concept_mentions(concept_key);
        CREATE INDEX concept_mentions_path ON concept_mentions(path);

        -- Growth-queue names already put to the definition gate, and what the paragraphs said. The
        -- fingerprint covers the paragraphs asked: when they change, the name is asked again.
        CREATE TABLE concept_checks (
            concept_key TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            outcome TEXT NOT NULL,         -- undefined | one-definition | written | left-alone
            checked_at REAL NOT NULL
        );

        -- Name pairs already decided by name resolution (same | different | unclear | unconfirmed).
        CREATE TABLE name_verdicts (
            unresolved_key TEXT NOT NULL,  -- the name links reach for
            name_key TEXT NOT NULL,        -- the title or alias it was compared with
            page_path TEXT NOT NULL,       -- the page that title or alias belongs to
            verdict TEXT NOT NULL,
            decided_at REAL NOT NULL,
            PRIMARY KEY (unresolved_key, name_key)
        );
        """,
    )
