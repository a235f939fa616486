"""``sentinel.paths`` decides where a transcript lands and takes ``.md`` off in one place, in any case."""

from __future__ import annotations

from pathlib import Path

from sentinel.paths import Role, is_page_file, page_name, role_lookup, role_of, transcript_path, with_md, without_md
from sentinel.settings import Folders, Settings


def test_md_comes_off_in_any_case_and_only_at_the_end() -> None:
    assert [without_md(p) for p in ("notes/A.md", "notes/A.MD", "notes/A.Md", "notes/A", "a.md/b")] == [
        "notes/A",
        "notes/A",
        "notes/A",
        "notes/A",
        "a.md/b",
    ]
    assert page_name("wiki/Über.MD") == "Über" and is_page_file("X.mD") and not is_page_file("X.mdx")
    assert with_md("notes/A") == "notes/A.md" and with_md("notes/A.MD") == "notes/A.MD"


def test_a_transcript_lands_in_the_configured_folder_whatever_its_link_says(tmp_path: Path) -> None:
    settings = Settings(vault=tmp_path, folders=Folders(conversations="Gespräche"))
    assert transcript_path("2026-01-01-1", settings) == "Gespräche/2026-01-01-1.md"
    assert transcript_path(" conversations/2026-01-01-1.MD ", settings) == "Gespräche/2026-01-01-1.md"


def test_the_role_lookup_a_sync_uses_decides_as_role_of_does(tmp_path: Path) -> None:
    settings = Settings(vault=tmp_path, folders=Folders(conversations="Gespräche"))
    paths = ["Gespräche/a.md", "GESPRÄCHE/b.md", "gespräche./c.md", "conversations/d.md", "notes/x/y.md"]
    paths += ["Notes/e.md", "notes /f.md", "wiki/g.md", "sources/h.md", "root.md", "other/i.md", "Gespräche/j.md"]
    lookup = role_lookup(settings)
    assert [lookup(p) for p in paths] == [role_of(p, settings) for p in paths]
    assert [lookup(p) for p in paths[:4]] == [Role.CONVERSATION, Role.CONVERSATION, Role.CONVERSATION, Role.OTHER]
