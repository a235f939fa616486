"""No-op sync by folder times: unchanged folders are not listed again, and nothing the vault changed is missed.

A folder's times move when an entry is created, removed or renamed in it, never when a page in it is edited in
place: these tests edit in place deep in a sub-folder and check the sync still sees it without a full walk.
``SETTLE_NS`` is set to nothing so that folders made a moment ago count as settled (the default 2 s margin
guards against changes inside one clock tick of the walk, which is what the last tests check); each change is
made a tick after the sync before it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sentinel.index import folders
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.settings import Folders
from tests.support.vault import WriteVault

TICK_S = 0.05  # longer than the file system's timestamp granularity (a kernel tick)


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folders, "SETTLE_NS", 0)


def _pages(db: object, word: str) -> list[str]:
    rows = db.execute(  # type: ignore[attr-defined]
        "SELECT DISTINCT c.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid WHERE chunks_fts MATCH ?", (word,)
    )
    return [r[0] for r in rows]


@pytest.mark.usefixtures("settled")
def test_an_edit_in_place_deep_in_a_sub_folder_is_seen_without_listing(vault_settings: WriteVault) -> None:
    settings = vault_settings({"a/b/c/deep.md": "# Deep\n\nfirst words", "top.md": "top", "a/side.md": "side"})
    db = open_index(settings)
    assert sync(settings, db).walk == "full"
    time.sleep(TICK_S)
    again = sync(settings, db)
    assert (again.walk, again.unchanged, again.updated) == ("folders", 3, 0)

    deep = Path(settings.vault) / "a/b/c/deep.md"
    folder_times = os.stat(deep.parent).st_mtime_ns, os.stat(deep.parent).st_ctime_ns
    time.sleep(TICK_S)
    with deep.open("r+", encoding="utf-8") as handle:  # in place: the folder's entries do not change
        handle.seek(0, os.SEEK_END)
        handle.write("\n\nzanzibarite appended in place")
    assert (os.stat(deep.parent).st_mtime_ns, os.stat(deep.parent).st_ctime_ns) == folder_times

    edited = sync(settings, db)
    assert (edited.walk, edited.updated, edited.changed_paths) == ("folders", 1, ["a/b/c/deep.md"])
    assert _pages(db, "zanzibarite") == ["a/b/c/deep.md"]


@pytest.mark.usefixtures("settled")
def test_a_page_added_or_removed_in_a_sub_folder_takes_the_full_walk(vault_settings: WriteVault) -> None:
    settings = vault_settings({"a/b/one.md": "one", "a/two.md": "two", "three.md": "three"})
    db = open_index(settings)
    sync(settings, db)
    time.sleep(TICK_S)
    (Path(settings.vault) / "a/b/new.md").write_text("quokkaish", encoding="utf-8")
    added = sync(settings, db)
    assert (added.walk, added.added) == ("full", 1)
    assert _pages(db, "quokkaish") == ["a/b/new.md"]

    time.sleep(TICK_S)
    assert sync(settings, db).walk == "folders"
    (Path(settings.vault) / "a/b/one.md").unlink()
    removed = sync(settings, db)
    assert (removed.walk, removed.removed) == ("full", 1)

    time.sleep(TICK_S)
    os.mkdir(Path(settings.vault) / "a/b/deeper")  # a new folder, even an empty one, is listed
    assert sync(settings, db).walk == "full"


def test_folders_changed_within_the_settling_margin_are_listed_again(vault_settings: WriteVault) -> None:
    settings = vault_settings({"a/one.md": "one", "two.md": "two"})
    db = open_index(settings)
    sync(settings, db)
    (Path(settings.vault) / "a/new.md").write_text("same tick", encoding="utf-8")
    report = sync(settings, db)  # made moments ago: the folder's times cannot tell this from the last listing
    assert (report.walk, report.added) == ("full", 1)


@pytest.mark.usefixtures("settled")
def test_an_untrusted_file_system_is_always_walked_in_full(
    vault_settings: WriteVault, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(folders, "MOUNTINFO", tmp_path / "no-mountinfo")
    folders.trusts_folder_times.cache_clear()
    try:
        settings = vault_settings({"a/one.md": "one"})
        db = open_index(settings)
        sync(settings, db)
        time.sleep(TICK_S)
        assert sync(settings, db).walk == "full"
    finally:
        folders.trusts_folder_times.cache_clear()


@pytest.mark.usefixtures("settled")
def test_a_rebuild_lists_every_folder(vault_settings: WriteVault) -> None:
    settings = vault_settings({"a/one.md": "one"})
    db = open_index(settings)
    sync(settings, db)
    time.sleep(TICK_S)
    assert sync(settings, db, rebuild=True).walk == "full"


@pytest.mark.usefixtures("settled")
def test_the_folder_walk_finds_what_the_full_walk_finds(vault_settings: WriteVault) -> None:
    settings = vault_settings({f"f{i % 3}/g{i % 2}/p{i}.md": f"page {i}" for i in range(12)} | {"root.md": "r"})
    db = open_index(settings)
    full = sync(settings, db)
    time.sleep(TICK_S)
    vault = Path(settings.vault)
    pages = [r[0] for r in db.execute("SELECT path FROM pages")]
    walked = folders.walk(db, vault, pages)
    assert (full.walk, walked.how, walked.walk.files) == ("full", "folders", [])
    assert walked.stats is not None
    stats = zip(pages, walked.stats.mtime_ns.tolist(), walked.stats.size.tolist(), strict=True)
    listed = folders.walk(db, vault, pages, full=True).walk.files
    assert sorted(stats) == sorted((f.relpath, f.mtime_ns, f.size) for f in listed)


@pytest.mark.usefixtures("settled")
def test_a_changed_role_folder_setting_refiles_pages_on_a_no_op_folder_walk(vault_settings: WriteVault) -> None:
    settings = vault_settings({"Gespräche/talk.md": "talk", "notes/n.md": "n", "root.md": "r"})
    db = open_index(settings)
    sync(settings, db)
    time.sleep(TICK_S)
    settings.folders = Folders(conversations="Gespräche")
    report = sync(settings, db)
    roles = dict(db.execute("SELECT path, role FROM pages").fetchall())
    assert (report.walk, report.updated, report.added, report.removed) == ("folders", 1, 0, 0)
    assert roles == {"Gespräche/talk.md": "conversation", "notes/n.md": "note", "root.md": "other"}


@pytest.mark.usefixtures("settled")
def test_a_folder_holding_a_linked_page_is_always_listed(vault_settings: WriteVault) -> None:
    settings = vault_settings({"a/real.md": "real", "b/other.md": "other"})
    (Path(settings.vault) / "b/linked.md").symlink_to(Path(settings.vault) / "a/real.md")
    db = open_index(settings)
    sync(settings, db)
    time.sleep(TICK_S)
    assert sync(settings, db).walk == "full"


def _edit_in_place(page: Path, text: str, *, keep_mtime: bool = False) -> None:
    """Rewrite a page's bytes without touching its folder's entries, its mtime restored when ``keep_mtime``."""
    before = os.stat(page)
    with page.open("r+", encoding="utf-8") as handle:
        handle.write(text)
        handle.truncate()
    if keep_mtime:
        os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.usefixtures("settled")
def test_the_folder_walk_re_reads_exactly_the_pages_whose_mtime_or_size_moved(vault_settings: WriteVault) -> None:
    files = {f"f{i % 4}/g{i % 3}/h{i % 2}/p{i}.md": f"page {i} words" for i in range(40)} | {"root.md": "root"}
    settings = vault_settings(files)
    vault = Path(settings.vault)
    db = open_index(settings)
    sync(settings, db)
    time.sleep(TICK_S)
    assert sync(settings, db).walk == "folders"

    time.sleep(TICK_S)
    _edit_in_place(vault / "f1/g1/h1/p13.md", "page 13 words plus quokkaish", keep_mtime=True)  # size alone
    _edit_in_place(vault / "f2/g0/h0/p30.md", "page 30 wordz")  # same size, new mtime
    _edit_in_place(vault / "root.md", "wombatish")  # both
    report = sync(settings, db)
    edited = ["f1/g1/h1/p13.md", "f2/g0/h0/p30.md", "root.md"]
    assert (report.walk, report.updated, report.unchanged) == ("folders", 3, 38)
    assert sorted(report.changed_paths) == edited
    assert _pages(db, "quokkaish") == ["f1/g1/h1/p13.md"]
    assert _pages(db, "wordz") == ["f2/g0/h0/p30.md"]
    time.sleep(TICK_S)
    assert (sync(settings, db).updated, sync(settings, db).walk) == (0, "folders")
