"""read, listing and graph: bounded depths, deterministic paging, the link structure as prose."""

from __future__ import annotations

from sentinel.tools.graph import graph
from sentinel.tools.listing import listing
from sentinel.tools.policy import Status
from sentinel.tools.read import read
from sentinel.vault.hashes import edit_hash
from tests.support.tool_context import MakeContext

LONG = (
    "# Intro\nshort intro\n## Details\n" + "\n".join(f"line {i} " + "word " * 20 for i in range(200)) + "\n# End\nbye\n"
)


def test_read_outline_then_section_then_pages_with_cursor(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/Long.md": LONG}, read_page_chars=2000)
    outline = read(ctx, "notes/Long.md")
    assert outline.status is Status.NEXT
    assert "3 sections" in outline.body and "2. Details (4400 words)" in outline.body
    assert edit_hash(LONG) in outline.body
    section = read(ctx, "notes/Long.md", depth="section", section="end")
    assert section.status is Status.OK and section.body.endswith("# End\nbye")
    pieces, cursor = [], 0
    while True:
        part = read(ctx, "notes/Long.md", depth="page", cursor=cursor)
        text = part.body.split("\n", 1)[1]
        pieces.append(text)
        if part.status is Status.OK:
            break
        assert part.status is Status.MORE and "continue with" in part.body
        cursor = int(part.body.split("cursor=")[1].split(")")[0])
        assert len(text) <= 2000
    assert "".join(pieces) == LONG


def test_read_names_the_sections_when_one_is_missing(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/Long.md": LONG})
    result = read(ctx, "notes/Long.md", depth="section", section="Nope")
    assert result.status is Status.RETRY and "1. Intro" in result.body
    assert read(ctx, "notes/none.md").status is Status.RETRY


def test_listing_pages_by_folder_facet_and_recency(make_ctx: MakeContext) -> None:
    files = {f"notes/n{i:02}.md": f"---\ntype: {'concept' if i % 2 else 'log'}\ntags: [x]\n---\nbody" for i in range(7)}
    files["sources/s.md"] = "---\nstatus: seedling\n---\nsource"
    ctx = make_ctx(files, list_page_size=3)
    first = listing(ctx, folder="notes")
    assert first.status is Status.MORE and first.body.splitlines()[1:] == [
        "notes/n00.md",
        "notes/n01.md",
        "notes/n02.md",
    ]
    assert "cursor=3" in first.body
    last = listing(ctx, folder="notes", cursor=6)
    assert last.status is Status.OK and last.body.splitlines()[1:] == ["notes/n06.md"]
    concepts = listing(ctx, filter="type:concept")
    assert concepts.body.startswith("3 pages")
    assert listing(ctx, filter="status:seedling role:source").body.splitlines()[1:] == ["sources/s.md"]
    assert listing(ctx, filter="tag:x").body.startswith("7 pages")
    assert listing(ctx, filter="type:nothing").status is Status.DONE
    assert listing(ctx, filter="role:bogus").status is Status.RETRY


def test_listing_by_a_boolean_facet(make_ctx: MakeContext) -> None:
    ctx = make_ctx({f"notes/n{i}.md": f"---\nmobile: {'true' if i % 2 else 'false'}\n---\nbody" for i in range(5)})
    assert listing(ctx, filter="mobile:false").body.splitlines()[1:] == ["notes/n0.md", "notes/n2.md", "notes/n4.md"]
    assert listing(ctx, filter="mobile:true").body.splitlines()[1:] == ["notes/n1.md", "notes/n3.md"]


def test_listing_unresolved_names(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"notes/a.md": "[[Wanted]] [[Other]]", "notes/b.md": "[[Wanted]]"})
    result = listing(ctx, filter="unresolved")
    assert result.body.splitlines()[1:] == [
        "Wanted — 2 pages reach for it (no page yet)",
        "Other — 1 pages reach for it (no page yet)",
    ]


def test_graph_as_prose_for_a_page_and_for_a_missing_name(make_ctx: MakeContext) -> None:
    ctx = make_ctx(
        {
            "notes/Hub.md": "---\naliases: [Centre]\n---\n[[Spoke]] [[Ghost]] [[Ghost]] ![[img.png]]",
            "notes/Spoke.md": "[[Hub]]",
            "notes/Other.md": "[[Ghost]] [[Centre]]",
        }
    )
    hub = graph(ctx, "Hub")
    assert hub.status is Status.OK
    assert "notes/Hub.md (also called: Centre)" in hub.body
    assert "points at (1): notes/Spoke.md" in hub.body
    assert "pointed at by (2): notes/Other.md, notes/Spoke.md" in hub.body
    assert "'Ghost' (no page; 2 pages reach for it)" in hub.body
    ghost = graph(ctx, "Ghost")
    assert "do not read it" in ghost.body and "notes/Hub.md, notes/Other.md" in ghost.body
    assert graph(ctx, "Nothing at all").status is Status.DONE
