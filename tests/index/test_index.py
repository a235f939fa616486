"""The derived index: resolution rules, the growth queue and its revival, incremental sync, the guard."""

from __future__ import annotations

import os
import sqlite3

from sentinel.index import queries
from sentinel.index.db import open_index
from sentinel.index.fold import fold
from sentinel.index.sync import sync
from sentinel.settings import Settings
from tests.support.vault import WriteVault


def resolved(db: sqlite3.Connection, source: str) -> dict[str, str | None]:
    rows = db.execute("SELECT target, resolved FROM links WHERE source = ? ORDER BY id", (source,))
    return {r["target"]: r["resolved"] for r in rows}


def indexed(settings: Settings) -> sqlite3.Connection:
    db = open_index(settings)
    sync(settings, db)
    return db


def test_resolution_order_exact_path_then_basename_then_alias(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "notes/src.md": "[[a/Same]] [[Same]] [[deep/x/Same]] [[Nick]] [[UPPER]] [[Missing]] [[x/Same]]",
            "a/Same.md": "a",
            "deep/x/Same.md": "deep",
            "z/Same.md": "z",
            "notes/Upper.md": "case-insensitive target",
            "notes/Holder.md": "---\naliases: [Nick]\n---\nhas an alias",
        }
    )
    db = indexed(settings)
    links = resolved(db, "notes/src.md")
    assert links["a/Same"] == "a/Same.md"  # exact path
    assert links["deep/x/Same"] == "deep/x/Same.md"
    assert links["x/Same"] == "deep/x/Same.md"  # path suffix, whole components
    # ambiguous basename: shortest path wins; the tie a/Same.md vs z/Same.md goes to the first in order
    assert links["Same"] == "a/Same.md"
    assert links["UPPER"] == "notes/Upper.md"
    assert links["Nick"] == "notes/Holder.md"
    assert links["Missing"] is None


def test_growth_queue_counts_only_link_placing_pages(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "notes/a.md": "[[Wanted]] [[Wanted]] ![[pic.png]]",
            "wiki/b.md": "[[Wanted]]",
            "other/c.md": "[[wanted]]",
            "sources/s.md": "[[Wanted]] [[Only Sources]]",
            "conversations/t.md": "[[Wanted]] [[Only Talk]]",
        }
    )
    rows = queries.unresolved(indexed(settings))
    assert [(r.name, r.pages, r.links) for r in rows] == [("Wanted", 3, 4)]


def test_new_page_revives_every_earlier_link_without_rewriting_files(vault_settings: WriteVault) -> None:
    files = {f"notes/n{i}.md": "see [[Growth Queue]] and [[growth queue#Why]]" for i in range(30)}
    settings = vault_settings(files)
    db = indexed(settings)
    assert db.execute("SELECT COUNT(*) FROM links WHERE resolved IS NULL").fetchone()[0] == 60
    before = {p: os.stat(settings.vault / p).st_mtime_ns for p in files}
    (settings.vault / "wiki").mkdir()
    (settings.vault / "wiki" / "Growth Queue.md").write_text("defined at last")
    report = sync(settings, db)
    assert report.added == 1 and report.links_changed == 60
    assert db.execute("SELECT COUNT(*) FROM links WHERE resolved = 'wiki/Growth Queue.md'").fetchone()[0] == 60
    assert before == {p: os.stat(settings.vault / p).st_mtime_ns for p in files}
    (settings.vault / "wiki" / "Growth Queue.md").unlink()
    sync(settings, db)
    assert db.execute("SELECT COUNT(*) FROM links WHERE resolved IS NULL").fetchone()[0] == 60


def test_alias_added_later_resolves_links(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "[[GRB]]", "notes/Gamma-ray burst.md": "text"})
    db = indexed(settings)
    assert resolved(db, "notes/a.md")["GRB"] is None
    (settings.vault / "notes/Gamma-ray burst.md").write_text("---\naliases: [GRB]\n---\ntext")
    sync(settings, db)
    assert resolved(db, "notes/a.md")["GRB"] == "notes/Gamma-ray burst.md"


def test_shorter_path_appearing_later_takes_the_name(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "[[Topic]]", "deep/er/Topic.md": "x"})
    db = indexed(settings)
    assert resolved(db, "notes/a.md")["Topic"] == "deep/er/Topic.md"
    (settings.vault / "Topic.md").write_text("root")
    sync(settings, db)
    assert resolved(db, "notes/a.md")["Topic"] == "Topic.md"


def test_sync_is_incremental_and_idempotent(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "one", "notes/b.md": "two"})
    db = open_index(settings)
    first = sync(settings, db)
    assert (first.added, first.updated, first.unchanged) == (2, 0, 0)
    again = sync(settings, db)
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 2)
    (settings.vault / "notes/b.md").write_text("two, edited")
    (settings.vault / "notes/a.md").unlink()
    third = sync(settings, db)
    assert (third.updated, third.removed, third.unchanged) == (1, 1, 0)
    assert [r[0] for r in db.execute("SELECT path FROM pages")] == ["notes/b.md"]


def test_link_only_edit_keeps_the_hash(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "Ada Lovelace wrote notes."})
    db = indexed(settings)
    old = db.execute("SELECT hash FROM pages").fetchone()[0]
    (settings.vault / "notes/a.md").write_text("[[Ada Lovelace]] wrote notes.")
    assert sync(settings, db).updated == 1
    assert db.execute("SELECT hash FROM pages").fetchone()[0] == old
    (settings.vault / "notes/a.md").write_text("[[Ada Lovelace]] wrote many notes.")
    sync(settings, db)
    assert db.execute("SELECT hash FROM pages").fetchone()[0] != old


def test_mass_disappearance_deletes_nothing_until_rebuild(vault_settings: WriteVault) -> None:
    settings = vault_settings({f"notes/p{i}.md": f"page {i}" for i in range(12)})
    db = indexed(settings)
    for i in range(8):
        (settings.vault / f"notes/p{i}.md").unlink()
    report = sync(settings, db)
    assert "8 of 12" in report.refused and report.removed == 0
    assert db.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 12
    rebuilt = sync(settings, db, rebuild=True)
    assert rebuilt.removed == 8 and not rebuilt.refused
    assert db.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 4


def test_whole_vault_vanishing_is_withheld_even_when_small(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/only.md": "x", "notes/two.md": "y"})
    db = indexed(settings)
    for p in ("notes/only.md", "notes/two.md"):
        (settings.vault / p).unlink()
    assert sync(settings, db).refused
    assert db.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 2


def test_hidden_folders_and_non_markdown_are_skipped(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {".obsidian/x.md": "x", ".trash/y.md": "y", "notes/.hidden.md": "h", "notes/a.txt": "t", "notes/ok.md": "ok"}
    )
    db = indexed(settings)
    assert [r[0] for r in db.execute("SELECT path FROM pages")] == ["notes/ok.md"]


def test_bad_inputs_are_recorded_problems_not_crashes(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/fine.md": "[[bad utf8]] [[binary]] [[huge]]"})
    settings.max_page_bytes = 1_000_000
    vault = settings.vault
    (vault / "notes/bad utf8.md").write_bytes(b"caf\xe9 latin-1 text")
    (vault / "notes/binary.md").write_bytes(b"\x89PNG\x00\x00data")
    (vault / "notes/huge.md").write_bytes(b"x" * 2_000_000)
    (vault / "notes/broken.md").write_text("---\n: : [\n---\nbody")
    os.symlink("/etc/hostname", vault / "notes/escape.md")
    db = open_index(settings)
    report = sync(settings, db)
    problems = dict(report.problems)
    assert "invalid UTF-8 at byte 3" in problems["notes/bad utf8.md"]
    assert "binary data" in problems["notes/binary.md"]
    assert "over max_page_bytes" in problems["notes/huge.md"]
    assert "broken frontmatter" in problems["notes/broken.md"]
    assert "outside the vault" in problems["notes/escape.md"]
    # pages that exist still answer to links even when their text was not indexed
    assert set(resolved(db, "notes/fine.md").values()) == {"notes/bad utf8.md", "notes/binary.md", "notes/huge.md"}
    assert db.execute("SELECT COUNT(*) FROM chunks WHERE path = 'notes/huge.md'").fetchone()[0] == 0


def test_fts_matches_across_diacritics(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {"notes/tr.md": "Ayarlar menüsünü açın ve Çalışma alanı seçin", "notes/de.md": "Über Größe"}
    )
    db = indexed(settings)

    def hits(q: str) -> list[str]:
        sql = "SELECT c.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid WHERE chunks_fts MATCH ?"
        return [r[0] for r in db.execute(sql, (q,))]

    assert hits("menusunu") == ["notes/tr.md"]
    assert hits(fold("çalışma")) == hits("calisma") == ["notes/tr.md"]
    # ß folds to ss; a German chunk's words are stemmed (Größe -> gross), the query folded in its language
    assert hits(fold("uber grosse", "de")) == hits("uber") == ["notes/de.md"]
