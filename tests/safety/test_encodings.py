"""Defect 1: a page Sentinel cannot decode exactly is never rewritten; BOM and line endings survive every write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sentinel.index.sync import sync
from sentinel.maintain.aliases import AliasRefused, add_alias
from sentinel.tools.capture import capture
from sentinel.tools.policy import Status
from sentinel.tools.relocate import relocate
from sentinel.tools.write import write
from sentinel.vault.hashes import edit_hash
from tests.support.tool_context import MakeContext

LATIN1 = b"caf\xe9 [[Target]]\n"


def _put(vault: Path, rel: str, data: bytes) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_append_to_a_latin1_page_is_refused_and_keeps_its_bytes(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/Target.md": "target\n"})
    old = _put(ctx.settings.vault, "notes/Old.md", LATIN1)
    result = write(ctx, "notes/Old.md", "more", mode="append")
    assert result.status is Status.STOP
    assert "notes/Old.md" in result.body and "UTF-8" in result.body and "byte 3" in result.body
    assert old.read_bytes() == LATIN1


def test_relocate_refuses_when_a_linking_page_cannot_be_decoded(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/Target.md": "target\n"})
    vault = ctx.settings.vault
    old = _put(vault, "notes/Old.md", LATIN1)

    sync(ctx.settings, ctx.writer())
    result = relocate(ctx, "notes/Target.md", "notes/Moved.md")
    assert result.status is Status.STOP and "notes/Old.md" in result.body and "UTF-8" in result.body
    assert old.read_bytes() == LATIN1
    assert (vault / "notes/Target.md").is_file() and not (vault / "notes/Moved.md").exists()  # nothing moved


def test_relocate_keeps_bom_and_crlf_of_the_pages_it_rewrites(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/Target.md": "target\n"})
    vault = ctx.settings.vault
    crlf = _put(vault, "notes/Crlf.md", b"\xef\xbb\xbf# Title\r\nsee [[Target]]\r\nend\r\n")
    mixed = _put(vault, "notes/Mixed.md", b"one\r\ntwo [[Target]]\nthree\r\n")

    sync(ctx.settings, ctx.writer())
    assert relocate(ctx, "notes/Target.md", "notes/Moved.md").status is Status.OK
    assert crlf.read_bytes() == b"\xef\xbb\xbf# Title\r\nsee [[Moved]]\r\nend\r\n"
    assert mixed.read_bytes() == b"one\r\ntwo [[Moved]]\nthree\r\n"


def test_append_and_replace_keep_bom_and_crlf(make_ctx: MakeContext) -> None:
    ctx = make_ctx({})
    page = _put(ctx.settings.vault, "notes/Win.md", b"\xef\xbb\xbfline one\r\nline two\r\n")

    sync(ctx.settings, ctx.writer())
    assert write(ctx, "notes/Win.md", "added\nand more", mode="append").status is Status.OK
    assert page.read_bytes() == b"\xef\xbb\xbfline one\r\nline two\r\nadded\r\nand more\r\n"
    seen = edit_hash(page.read_bytes())
    assert write(ctx, "notes/Win.md", "new\nbody", mode="replace", expected_hash=seen).status is Status.OK
    assert page.read_bytes() == b"\xef\xbb\xbfnew\r\nbody\r\n"


def test_capture_refuses_to_append_to_an_undecodable_note(make_ctx: MakeContext) -> None:
    ctx = make_ctx({})
    vault = ctx.settings.vault
    note = _put(vault, "notes/Topic.md", LATIN1)
    result = capture(ctx, "chat-1", [{"role": "user", "content": "hi"}], "Topic", "keep this")
    assert result.status is Status.STOP and "notes/Topic.md" in result.body
    assert note.read_bytes() == LATIN1
    assert not (vault / "conversations").exists() or not list((vault / "conversations").iterdir())


def test_a_file_name_that_is_not_utf8_is_a_recorded_problem_not_a_crash(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/ok.md": "fine\n"})
    os.mkdir(os.path.join(os.fsencode(ctx.settings.vault), b"notes", b"d\xe9j\xe0"))
    (ctx.settings.vault / "notes" / os.fsdecode(b"caf\xe9.md")).write_bytes(b"hi\n")
    (ctx.settings.vault / "notes" / os.fsdecode(b"d\xe9j\xe0") / "inner.md").write_bytes(b"hi\n")
    report = sync(ctx.settings, ctx.writer())
    assert sorted(path for path, _ in report.problems) == ["notes/caf\\xe9.md", "notes/d\\xe9j\\xe0/inner.md"]
    assert all("not valid UTF-8" in problem for _, problem in report.problems)
    assert ctx.reader().execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 1


def test_an_alias_is_never_written_into_an_undecodable_page(tmp_path: Path) -> None:
    page = _put(tmp_path, "notes/Old.md", b"---\naliases: [x]\n---\ncaf\xe9\n")
    with pytest.raises(AliasRefused, match="not valid UTF-8"):
        add_alias(page, "Cafe")
    assert page.read_bytes() == b"---\naliases: [x]\n---\ncaf\xe9\n"
    bom = _put(tmp_path, "notes/Bom.md", b"\xef\xbb\xbf---\naliases: [x]\n---\nbody\n")
    add_alias(bom, "Other")
    assert bom.read_bytes().startswith(b"\xef\xbb\xbf---\n") and bom.read_bytes().endswith(b"---\nbody\n")
