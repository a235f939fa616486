"""Defects 2 and 3: gates judge the resolved path; a rename into wiki/ under a new name is creation."""

from __future__ import annotations

import os

from sentinel.tools.context import Origin
from sentinel.tools.policy import Status
from sentinel.tools.relocate import relocate
from sentinel.tools.remove import remove
from sentinel.tools.write import write
from sentinel.vault.hashes import edit_hash
from tests.support.tool_context import MakeContext

TRANSCRIPT = "---\nchat_id: c1\n---\n## user\nhi\n"
FILES = {"conversations/t.md": TRANSCRIPT, "notes/Page.md": "page\n", "wiki/Real.md": "A real concept.\n"}


def test_a_symlinked_folder_does_not_bypass_the_transcript_gate(make_ctx: MakeContext) -> None:
    ctx = make_ctx(FILES)
    vault = ctx.settings.vault
    os.symlink("../conversations", vault / "notes/convlink")
    for result in (
        write(ctx, "notes/convlink/t.md", "forged", mode="append"),
        write(ctx, "notes/convlink/new.md", "forged"),
        relocate(ctx, "notes/convlink/t.md", "notes/t.md"),
        relocate(ctx, "notes/Page.md", "notes/convlink/Page.md"),
        remove(ctx, "notes/convlink/t.md"),
    ):
        assert result.status is Status.STOP and "transcript" in result.body, result.body
    assert (vault / "conversations/t.md").read_text() == TRANSCRIPT
    assert sorted(p.name for p in (vault / "conversations").iterdir()) == ["t.md"]


def test_a_symlinked_file_is_judged_by_where_it_leads(make_ctx: MakeContext) -> None:
    ctx = make_ctx(FILES)
    vault = ctx.settings.vault
    os.symlink("../conversations/t.md", vault / "notes/alias.md")
    os.symlink("../wiki", vault / "notes/wikilink")
    assert write(ctx, "notes/alias.md", "forged", mode="append").status is Status.STOP
    assert write(ctx, "notes/wikilink/Invented.md", "from chat").status is Status.STOP
    assert not (vault / "wiki/Invented.md").exists()


def test_a_symlink_into_a_hidden_folder_is_refused(make_ctx: MakeContext) -> None:
    ctx = make_ctx(FILES)
    vault = ctx.settings.vault
    (vault / ".obsidian").mkdir()
    os.symlink("../.obsidian", vault / "notes/hid")
    result = write(ctx, "notes/hid/x.md", "x")
    assert result.status is Status.RETRY and "hidden" in result.body
    assert not (vault / ".obsidian/x.md").exists()


def test_renaming_into_wiki_under_a_new_name_is_creation(make_ctx: MakeContext) -> None:
    ctx = make_ctx(FILES)
    vault = ctx.settings.vault
    renamed = relocate(ctx, "wiki/Real.md", "wiki/Invented.md")
    assert renamed.status is Status.STOP and "wiki/Invented.md" in renamed.body
    assert (vault / "wiki/Real.md").is_file() and not (vault / "wiki/Invented.md").exists()
    # the same name in a subfolder of wiki/ is a move, not a new concept
    assert relocate(ctx, "wiki/Real.md", "wiki/physics/Real.md").status is Status.OK
    person = make_ctx({}, origin=Origin.USER)
    assert relocate(person, "wiki/physics/Real.md", "wiki/Renamed.md").status is Status.OK


def test_stale_guard_sees_a_link_retarget(make_ctx: MakeContext) -> None:
    """Defect 6: the person retargets a link after the model's read; the replace must not discard it."""
    ctx = make_ctx({"notes/a.md": "See [[A|the page]] here.\n", "notes/A.md": "a\n", "notes/B.md": "b\n"})
    page = ctx.settings.vault / "notes/a.md"
    seen = edit_hash(page.read_bytes())
    page.write_text("See [[B|the page]] here.\n")
    stale = write(ctx, "notes/a.md", "model text", mode="replace", expected_hash=seen)
    assert stale.status is Status.RETRY and edit_hash(page.read_bytes()) in stale.body
    assert page.read_text() == "See [[B|the page]] here.\n"
    # the index's content hash stays link-insensitive: a link-only edit does not requeue analysis
    from sentinel.index.sync import sync

    before = ctx.reader().execute("SELECT hash FROM pages WHERE path = 'notes/a.md'").fetchone()[0]
    sync(ctx.settings, ctx.writer())
    assert ctx.reader().execute("SELECT hash FROM pages WHERE path = 'notes/a.md'").fetchone()[0] == before


def test_a_destination_under_a_page_is_a_retry_not_a_crash(make_ctx: MakeContext) -> None:
    ctx = make_ctx(FILES)
    for destination in ("notes/Page.md/inner.md", "notes/Page.md/deeper/x.md"):
        result = relocate(ctx, "notes/Page.md", destination)
        assert result.status is Status.RETRY and "notes/Page.md" in result.body and "folder" in result.body
    assert (ctx.settings.vault / "notes/Page.md").read_text() == "page\n"
