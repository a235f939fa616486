"""The fusion's per-page unit lookups (prose windows per page, whether a page opens with an entry) read the
chunks' index alone, never a chunk's row: ~300 pages a query, a row read each cost 7-10 ms at 100k pages
(``migrations.m009_chunk_units_index``). Checked on the statements the two functions really run."""

from __future__ import annotations

import sqlite3

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.lexical import windows_per_page
from sentinel.search.summaries import excerpts_of_entries
from tests.support.vault import WriteVault

PROSE = "# Tides\n\n" + "The tide tables hang in the chandlery window beside the charts of the bay. " * 120
CHAT = "# Chat with Ana\n\n" + "".join(f"- **Ana:** turn {i} about the picnic on Sunday\n" for i in range(12))


def _statements(db: sqlite3.Connection, call: object) -> list[str]:
    ran: list[str] = []
    db.set_trace_callback(ran.append)
    try:
        call()  # type: ignore[operator]
    finally:
        db.set_trace_callback(None)
    return [s for s in ran if "chunks" in s]


def _plan(db: sqlite3.Connection, statement: str) -> list[str]:
    return [str(row[3]) for row in db.execute("EXPLAIN QUERY PLAN " + statement)]


def test_unit_lookups_read_the_index_only(vault_settings: WriteVault) -> None:
    settings = vault_settings({"Tides.md": PROSE, "Chat.md": CHAT})
    db = open_index(settings)
    sync(settings, db)
    paths = ["Tides.md", "Chat.md"]

    assert windows_per_page(db, paths)["Tides.md"] > 1
    assert excerpts_of_entries(db, paths) == {"Chat.md"}
    for call in (lambda: windows_per_page(db, paths), lambda: excerpts_of_entries(db, paths)):
        statements = _statements(db, call)
        assert statements, "the lookup ran no statement on chunks"
        for statement in statements:
            on_chunks = [line for line in _plan(db, statement) if " c USING" in line or "chunks USING" in line]
            assert on_chunks, statement
            assert all("COVERING INDEX" in line for line in on_chunks), (statement, on_chunks)
    db.close()
