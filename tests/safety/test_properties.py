"""Property tests: random paths, names, links, encodings and symlink layouts against the jail, the gates, the
link rewrite, the parser and the index. Invariants: nothing is written outside the vault, no gate is bypassed,
no byte changes that the operation did not target, and the index always equals a full rebuild."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sentinel.index.consistency import differences
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.paths import PathRefused, Role, jail, role_of
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.relocate import relocate
from sentinel.tools.write import write
from sentinel.vault.parse import parse_page
from sentinel.vault.rewrite import retarget_links
from sentinel.vault.write import ExactPage, read_exact

SLOW = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))

# names drawn to hit the edges: dots, case, separators, unicode, control bytes, surrogates
COMPONENT = st.one_of(
    st.sampled_from(
        [
            "notes",
            "wiki",
            "conversations",
            "sources",
            "Notes",
            "convlink",
            "wikilink",
            "out",
            "hid",
            ".obsidian",
            "..",
            ".",
            "",
            "a.md",
            "T.md",
            "t.md",
            "x.MD",
            "café.md",
            "cafe\u0301.md",
        ]
    ),
    st.text(st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=8),
    st.text(st.sampled_from("ab.\\\x00\ud800 é/"), min_size=1, max_size=6),
)
RANDOM_PATH = st.lists(COMPONENT, min_size=1, max_size=5).map("/".join)
# paths through the layout's own folders and links, where a bypass would hide
LAYOUT_PATH = st.tuples(
    st.sampled_from(["notes", "wiki", "conversations", "sources", "Notes", "."]),
    st.sampled_from(["convlink", "wikilink", "out", "hid", "loop", "sub", "", "..", "convlink/.."]),
    st.sampled_from(["t.md", "a.md", "T.md", "Real.md", "New.md", "tlink.md", "x.txt", "T.MD"]),
).map(lambda parts: "/".join(p for p in parts if p))
USER_PATH = st.one_of(LAYOUT_PATH, RANDOM_PATH)


def _layout(root: Path) -> tuple[Settings, Path, dict[str, bytes]]:
    """A vault with every role folder, a hidden folder, an outside folder and symlinks into each of them."""
    if root.exists():
        shutil.rmtree(root)
    vault, outside = root / "vault", root / "outside"
    files = {
        "notes/a.md": b"[[T]] and [[t]]\n",
        "notes/T.md": b"target\r\n",
        "wiki/Real.md": b"real concept\n",
        "conversations/t.md": b"---\nchat_id: c\n---\nverbatim\n",
        "sources/s.md": b"source\n",
        ".obsidian/a.md": b"hidden\n",
    }
    for rel, data in files.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_bytes(data)
    outside.mkdir()
    (outside / "a.md").write_bytes(b"outside\n")
    for name, target in {
        "convlink": "../conversations",
        "wikilink": "../wiki",
        "out": "../../outside",
        "hid": "../.obsidian",
        "loop": "loop",
    }.items():
        os.symlink(target, vault / "notes" / name)
    os.symlink("../conversations/t.md", vault / "notes/tlink.md")
    settings_ = Settings(vault=vault, index_path=root / "index.db", _env_file=None)
    return settings_, outside, files


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and ".sentinel" not in p.parts
    }


@SLOW
@given(path=USER_PATH)
def test_the_jail_returns_only_visible_pages_inside_the_vault(
    tmp_path_factory: pytest.TempPathFactory, path: str
) -> None:
    root = tmp_path_factory.getbasetemp() / "jail"
    if not root.exists():
        _layout(root)
    vault = (root / "vault").resolve()
    try:
        target, rel = jail(vault, path)
    except PathRefused as err:
        assert str(err)
        return
    real = Path(os.path.realpath(target))
    assert vault in real.parents
    assert real.relative_to(vault).as_posix() == rel  # the gates see where the path really leads
    assert not any(part.startswith(".") for part in rel.split("/")) and rel.lower().endswith(".md")


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=USER_PATH, destination=USER_PATH, mode=st.sampled_from(["create", "append", "replace"]))
def test_no_write_leaves_the_vault_touches_a_transcript_or_creates_a_concept(
    tmp_path_factory: pytest.TempPathFactory, path: str, destination: str, mode: str
) -> None:
    root = tmp_path_factory.getbasetemp() / "writes"
    settings_, _, _ = _layout(root)
    sync(settings_, open_index(settings_))
    ctx = ToolContext(settings=settings_)
    before = _snapshot(root)
    write(ctx, path, "forged text", mode=mode)  # type: ignore[arg-type]
    relocate(ctx, path, destination)
    after = _snapshot(root)
    assert {k: v for k, v in after.items() if k.startswith("outside/")} == {
        k: v for k, v in before.items() if k.startswith("outside/")
    }
    assert after.get("vault/conversations/t.md") == before["vault/conversations/t.md"]
    assert sorted(k for k in after if k.startswith("vault/conversations/")) == ["vault/conversations/t.md"]
    assert not [k for k in after if k.startswith("vault/.obsidian/") and k not in before]
    wiki = sorted(k.rsplit("/", 1)[-1] for k in after if k.startswith("vault/wiki/"))
    assert wiki in (["Real.md"], [])  # the one concept may move inside wiki/ or out; none appears
    assert not differences(settings_, ctx.writer())


LINE_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=40)
LINK = st.sampled_from(
    [
        "[[Target]]",
        "[[Target|label]]",
        "[[Target#Head]]",
        "[[target]]",
        "[[Other]]",
        "![[Target]]",
        "`[[Target]]`",
        "[md](Target.md)",
    ]
)
ENDING = st.sampled_from(["\n", "\r\n", "\r", ""])
PAGE = st.lists(st.tuples(LINE_TEXT, st.lists(LINK, max_size=2), ENDING), max_size=8).map(
    lambda rows: "".join(text + "".join(links) + end for text, links, end in rows)
)


@SLOW
@given(text=PAGE)
def test_a_link_rewrite_changes_nothing_but_the_targeted_links(text: str) -> None:
    rewritten, count = retarget_links(text, {"target"}, "Zq9", "notes/Zq9.md")
    if "Zq9" not in text:
        restored = rewritten.replace("[[Zq9", "[[Target").replace("(notes/Zq9.md)", "(Target.md)")
        assert restored.casefold() == text.casefold() and len(restored) == len(text)
        assert count == rewritten.count("Zq9")
    untouched, none = retarget_links(text, {"no such page"}, "Zq9", "notes/Zq9.md")
    assert untouched == text and none == 0


@SLOW
@given(text=PAGE, bom=st.booleans())
def test_exact_pages_round_trip_every_byte(tmp_path_factory: pytest.TempPathFactory, text: str, bom: bool) -> None:
    path = tmp_path_factory.getbasetemp() / "exact.md"
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    path.write_bytes(data)
    page = read_exact(path, "exact.md")
    assert page.bytes_of(page.text) == data
    assert isinstance(page, ExactPage)


@SLOW
@given(data=st.binary(max_size=200))
def test_the_parser_takes_any_bytes(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    parsed = parse_page("notes/p.md", text)
    lines = max(1, len(text.splitlines()) + 1)
    assert all(1 <= h.line <= lines for h in parsed.headings)
    assert all(link.line >= 1 for link in parsed.links)


NAMES = st.lists(
    st.sampled_from(["A", "a", "B", "Café", "Cafe\u0301", "x y", "notes", "Target", "T"]), min_size=1, max_size=6
)


@SLOW
@given(
    names=NAMES,
    folders=st.lists(st.sampled_from(["notes", "wiki", "sources", "other", "notes/sub"]), min_size=6, max_size=6),
    links=st.lists(NAMES, min_size=6, max_size=6),
)
def test_link_resolution_after_edits_equals_a_rebuild(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], folders: list[str], links: list[list[str]]
) -> None:
    root = tmp_path_factory.getbasetemp() / "resolve"
    if root.exists():
        shutil.rmtree(root)
    vault = root / "vault"
    settings_ = Settings(vault=vault, index_path=root / "index.db", _env_file=None)
    db = open_index(settings_)
    for step, name in enumerate(names):  # each step adds a page and re-syncs, as edits in Obsidian do
        page = vault / folders[step] / f"{name}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(" ".join(f"[[{n}]]" for n in links[step]) + "\n", encoding="utf-8")
        sync(settings_, db)
    if len(names) > 1:
        first = vault / folders[0] / f"{names[0]}.md"
        if first.exists():
            first.unlink()
            if sync(settings_, db).refused:  # the vault's last page went: the guard waits for an explicit rebuild
                sync(settings_, db, rebuild=True)
    assert not differences(settings_, db)
    dangling = db.execute(
        "SELECT COUNT(*) FROM links WHERE resolved IS NOT NULL AND resolved NOT IN (SELECT path FROM pages)"
    ).fetchone()[0]
    assert dangling == 0
    assert all(role_of(r[0], settings_) in Role for r in db.execute("SELECT path FROM pages"))
