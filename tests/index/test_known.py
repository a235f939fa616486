"""The index's page rows as columns (``sentinel.index.known``): the role check and the collector's state."""

from __future__ import annotations

import gc

from sentinel.index.db import open_index
from sentinel.index.known import Known
from sentinel.index.migrations import transaction
from sentinel.index.sync import sync
from sentinel.paths import role_lookup
from tests.support.vault import WriteVault


def test_only_the_rows_whose_role_is_not_their_folders_are_misfiled(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "a", "notes/b.md": "b", "wiki/c.md": "c", "root.md": "r"})
    db = open_index(settings)
    sync(settings, db)
    with transaction(db):  # as written under an older role-folder setting
        db.execute("UPDATE pages SET role = 'wiki' WHERE path = 'notes/b.md'")
    known = Known(db, role_lookup(settings))
    assert sorted(p for p, wrong in zip(known.paths, known.misfiled.tolist(), strict=True) if wrong) == ["notes/b.md"]
    report = sync(settings, db)
    assert (report.updated, report.changed_paths) == (1, ["notes/b.md"])
    assert db.execute("SELECT role FROM pages WHERE path = 'notes/b.md'").fetchone()[0] == "note"


def test_reading_the_rows_leaves_the_garbage_collector_as_it_found_it(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "a"})
    db = open_index(settings)
    sync(settings, db)
    assert gc.isenabled()
    Known(db, role_lookup(settings))
    assert gc.isenabled()
    gc.disable()
    try:
        Known(db, role_lookup(settings))
        assert not gc.isenabled()
    finally:
        gc.enable()
