"""write, relocate, remove and their gates: transcript STOP, wiki-create refusal, stale-hash RETRY, the jail."""

from __future__ import annotations

import os

import pytest

from sentinel.index.sync import sync
from sentinel.tools.context import Origin
from sentinel.tools.policy import Status
from sentinel.tools.relocate import relocate
from sentinel.tools.remove import remove
from sentinel.tools.write import write
from sentinel.vault.hashes import edit_hash
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Topic.md": "# Topic\nAbout [[Moved Page]] and [[Moved Page#Part|a part]] and `[[Moved Page]]`.\n",
    "notes/Other.md": "See [md](Moved%20Page.md) and [[Moved Page]].\n",
    "notes/Moved Page.md": "the page\n",
    "conversations/2026-01-01-1.md": "---\nchat_id: c1\n---\n## user\nhi [[Moved Page]]\n",
    "wiki/Concept.md": "A concept page.\n",
}


def test_create_append_replace_round_trip(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    created = write(ctx, "notes/New.md", "first line")
    assert created.status is Status.OK and "created notes/New.md" in created.body
    assert write(ctx, "notes/New.md", "again").status is Status.RETRY  # create never overwrites
    assert write(ctx, "notes/New.md", "second line", mode="append").status is Status.OK
    text = (ctx.settings.vault / "notes/New.md").read_text()
    assert text == "first line\nsecond line\n"
    replaced = write(ctx, "notes/New.md", "fresh", mode="replace", expected_hash=edit_hash(text))
    assert replaced.status is Status.OK
    assert ctx.reader().execute("SELECT COUNT(*) FROM chunks WHERE path = 'notes/New.md'").fetchone()[0] == 1


def test_transcripts_are_a_stop_for_every_verb(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    path = "conversations/2026-01-01-1.md"
    before = (ctx.settings.vault / path).read_text()
    for result in (
        write(ctx, path, "with additions", mode="append"),
        write(ctx, "conversations/new.md", "invented"),
        relocate(ctx, path, "notes/x.md"),
        relocate(ctx, "notes/Topic.md", "conversations/Topic.md"),
        remove(ctx, path),
    ):
        assert result.status is Status.STOP and "transcript" in result.body
    assert (ctx.settings.vault / path).read_text() == before
    assert not (ctx.settings.vault / "conversations/new.md").exists()


def test_model_cannot_create_a_wiki_page_but_can_edit_one(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    refused = write(ctx, "wiki/Invented.md", "a concept nobody defined")
    assert refused.status is Status.STOP and "wiki/" in refused.body
    assert not (ctx.settings.vault / "wiki/Invented.md").exists()
    assert relocate(ctx, "notes/Topic.md", "wiki/Topic.md").status is Status.STOP
    assert write(ctx, "wiki/Concept.md", "More.", mode="append").status is Status.OK
    person = make_ctx({}, origin=Origin.USER)
    assert write(person, "wiki/Mine.md", "the person creates it").status is Status.OK


def test_stale_write_is_refused_with_the_fresh_hash(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    path = ctx.settings.vault / "notes/Topic.md"
    seen = edit_hash(path.read_text())
    path.write_text(path.read_text() + "\nEdited in Obsidian meanwhile.\n")
    fresh = edit_hash(path.read_text())
    stale = write(ctx, "notes/Topic.md", "overwrite", mode="replace", expected_hash=seen)
    assert stale.status is Status.RETRY and fresh in stale.body
    assert "Edited in Obsidian" in path.read_text()
    missing = write(ctx, "notes/Topic.md", "overwrite", mode="replace")
    assert missing.status is Status.RETRY and fresh in missing.body
    assert write(ctx, "notes/Topic.md", "overwrite", mode="replace", expected_hash=fresh).status is Status.OK


def test_adding_links_makes_a_replace_stale_but_keeps_the_content_hash(make_ctx: MakeContext) -> None:
    """A link the person adds after the read is an edit a replace would discard: the edit hash refuses it,
    while the index's content hash (what requeues analysis) stays blind to link markup."""
    ctx = make_ctx({"notes/a.md": "Ada Lovelace wrote notes.\n"})
    path = ctx.settings.vault / "notes/a.md"
    seen = edit_hash(path.read_text())
    before = ctx.reader().execute("SELECT hash FROM pages WHERE path = 'notes/a.md'").fetchone()[0]
    path.write_text("[[Ada Lovelace]] wrote notes.\n")
    assert write(ctx, "notes/a.md", "replaced", mode="replace", expected_hash=seen).status is Status.RETRY
    assert path.read_text() == "[[Ada Lovelace]] wrote notes.\n"
    sync(ctx.settings, ctx.writer())
    assert ctx.reader().execute("SELECT hash FROM pages WHERE path = 'notes/a.md'").fetchone()[0] == before


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside.md", "climbs out"),
        ("/etc/passwd.md", "absolute"),
        ("notes/a\x00b.md", "NUL"),
        ("notes/" + "x" * 300 + ".md", "longer than"),
        ("notes/picture.png", "not a markdown page"),
        (".obsidian/app.md", "hidden"),
        ("notes/link/escape.md", "outside the vault"),
        ("", "empty"),
    ],
)
def test_jail_refuses_with_a_specific_reason(make_ctx: MakeContext, path: str, reason: str) -> None:
    ctx = make_ctx(VAULT)
    os.symlink("/tmp", ctx.settings.vault / "notes/link")
    result = write(ctx, path, "x")
    assert result.status is Status.RETRY and reason in result.body


def test_relocate_rewrites_links_like_obsidian(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    moved = relocate(ctx, "notes/Moved Page.md", "notes/archive/Renamed.md")
    assert moved.status is Status.OK and "rewrote 4 links in 2 pages" in moved.body
    topic = (ctx.settings.vault / "notes/Topic.md").read_text()
    assert "[[Renamed]]" in topic and "[[Renamed#Part|a part]]" in topic and "`[[Moved Page]]`" in topic
    assert "[md](notes/archive/Renamed.md)" in (ctx.settings.vault / "notes/Other.md").read_text()
    transcript = (ctx.settings.vault / "conversations/2026-01-01-1.md").read_text()
    assert "[[Moved Page]]" in transcript  # transcripts stay verbatim
    db = ctx.reader()
    assert (
        db.execute(
            "SELECT COUNT(*) FROM links WHERE resolved = 'notes/archive/Renamed.md' AND source LIKE 'notes/%'"
        ).fetchone()[0]
        == 4
    )


def test_remove_returns_incoming_links_to_the_growth_queue(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    removed = remove(ctx, "notes/Moved Page.md")
    assert removed.status is Status.OK and "back in the growth queue" in removed.body
    assert not (ctx.settings.vault / "notes/Moved Page.md").exists()
    unresolved = (
        ctx.reader()
        .execute("SELECT COUNT(*) FROM links WHERE target_key = 'moved page' AND resolved IS NULL")
        .fetchone()[0]
    )
    assert unresolved == 5
    assert remove(ctx, "notes/Moved Page.md").status is Status.RETRY


def test_new_pages_get_the_usual_file_mode(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    write(ctx, "notes/Fresh.md", "text")
    mode = (ctx.settings.vault / "notes/Fresh.md").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()
    (ctx.settings.vault / "notes/Topic.md").chmod(0o640)
    write(ctx, "notes/Topic.md", "more", mode="append")
    assert (ctx.settings.vault / "notes/Topic.md").stat().st_mode & 0o777 == 0o640


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
