"""Obsidian-faithful parsing: every link form, code exclusion, aliases, tags, headings, chunks, the hash rule."""

from __future__ import annotations

from sentinel.vault.entries import OVERLAP_WORDS
from sentinel.vault.hashes import content_hash
from sentinel.vault.links import link_key
from sentinel.vault.parse import parse_page

PAGE = """---
aliases: [Ex, "Why Not"]
tags: [alpha, beta/gamma]
description: A page about everything.
---
# Top
Plain [[Page]], labelled [[Page|the label]], heading [[Page#Section]], block [[Page#^abc123]],
folder [[folder/Deep]], extension [[Named.md]], embed ![[Embedded note]], image ![[photo.png]],
markdown [md link](Other%20Page.md), markdown fragment [x](sub/Third.md#Part), external [web](https://x.org/a.md).
Inline code `[[not a link]]` and a tag #inline-tag but not a colour #123.

```
[[inside a fence]]
```

    [[inside indented code]]

| col | other |
|-----|-------|
| [[Table target\\|shown]] | x |

## Second
More text.
"""


def test_every_link_form_is_found_and_code_is_not() -> None:
    page = parse_page("notes/X.md", PAGE)
    found = {(link.target, link.heading, link.kind) for link in page.links}
    assert found == {
        ("Page", None, "wikilink"),
        ("Page", "Section", "wikilink"),
        ("Page", "^abc123", "wikilink"),
        ("folder/Deep", None, "wikilink"),
        ("Named", None, "wikilink"),
        ("Embedded note", None, "embed"),
        ("photo.png", None, "attachment"),
        ("Other Page", None, "markdown"),
        ("sub/Third", "Part", "markdown"),
        ("Table target", None, "wikilink"),
    }
    assert not any("inside" in link.target or "not a link" in link.target for link in page.links)
    labelled = next(link for link in page.links if link.display == "the label")
    assert labelled.target == "Page"


def test_frontmatter_aliases_tags_headings_description() -> None:
    page = parse_page("notes/X.md", PAGE)
    assert page.aliases == ["Ex", "Why Not"]
    assert page.tags == ["alpha", "beta/gamma", "inline-tag"]
    assert [(h.level, h.text) for h in page.headings] == [(1, "Top"), (2, "Second")]
    assert page.description == "A page about everything."
    assert page.title == "X"


def test_alias_given_as_a_string() -> None:
    assert parse_page("a.md", "---\naliases: One, Two\n---\nx").aliases == ["One", "Two"]


def test_chunks_carry_their_heading_trail() -> None:
    page = parse_page("notes/T.md", "intro words\n# A\nalpha text\n## B\nbeta text\n# C\ngamma")
    assert [(c.trail, c.text) for c in page.chunks] == [
        ("T", "intro words"),
        ("T > A", "alpha text"),
        ("T > A > B", "beta text"),
        ("T > C", "gamma"),
    ]


def test_long_sections_split_under_the_word_limit_with_one_short_paragraph_of_overlap() -> None:
    paragraphs = [f"p{i} " + " ".join(["word"] * 39) for i in range(20)]
    chunks = parse_page("p.md", "# H\n" + "\n\n".join(paragraphs), chunk_words=100).chunks
    assert all(c.words <= 100 + OVERLAP_WORDS for c in chunks)
    # two 40-word paragraphs fit; each window after the first opens with the last paragraph of the one before
    assert [c.text.split("\n\n")[0].split()[0] for c in chunks] == [f"p{i}" for i in range(19)]
    assert {p for c in chunks for p in c.text.split("\n\n")} == set(paragraphs)


def test_a_paragraph_longer_than_the_overlap_is_not_read_twice() -> None:
    paragraphs = [f"p{i} " + " ".join(["word"] * (OVERLAP_WORDS + 9)) for i in range(4)]
    chunks = parse_page("p.md", "# H\n" + "\n\n".join(paragraphs), chunk_words=100).chunks
    assert [c.text for c in chunks] == paragraphs


def test_hash_ignores_link_markup_but_sees_real_edits() -> None:
    plain = "We met Ada Lovelace in London."
    linked = "We met [[Ada Lovelace]] in [[London]]."
    labelled = "We met [[people/Ada Lovelace|Ada Lovelace]] in London."
    assert content_hash(plain) == content_hash(linked) == content_hash(labelled)
    assert content_hash(plain) != content_hash("We met Ada Lovelace in Paris.")
    assert content_hash("[x](Some%20Page.md)") == content_hash("x")


def test_broken_frontmatter_is_a_recorded_problem_not_a_crash() -> None:
    page = parse_page("notes/B.md", "---\ntitle: [unclosed\n---\nbody with [[Link]]\n")
    assert page.problems and "broken frontmatter" in page.problems[0]
    assert [link.target for link in page.links] == ["Link"]


def test_link_keys_normalise_case_extension_and_slashes() -> None:
    assert link_key("Folder\\Page.MD") == "folder/page"
    assert link_key("./a/B.md") == "a/b"


def _targets(relpath: str, text: str) -> list[tuple[str, str]]:
    return [(link.target, link.kind) for link in parse_page(relpath, text).links]


def test_relative_markdown_links_become_vault_paths() -> None:
    text = "See [c](../Target%20C.md), [d](<../Target D.md>), [e](./Near.md) and [out](../../../Outside.md)."
    assert _targets("notes/sub/A.md", text) == [
        ("notes/Target C", "markdown"),
        ("notes/Target D", "markdown"),
        ("notes/sub/Near", "markdown"),
        ("../../../Outside", "markdown"),  # climbs out of the vault: reaches no page, as written
    ]


def test_links_inside_comments_do_not_count() -> None:
    text = "Kept [[Seen]].\n%% hidden [[Gone]] and [x](Gone2.md) #hiddentag\nstill hidden [[Gone3]] %%\n`%%` [[After]]"
    page = parse_page("notes/A.md", text)
    assert [link.target for link in page.links] == ["Seen", "After"]
    assert "hiddentag" not in page.tags


def test_links_in_frontmatter_properties_count() -> None:
    text = '---\nrelated: "[[Ledger database]]"\nup:\n  - "[[Index|home]]"\ntitle: plain\n---\n# A\n\n[[Body]]'
    page = parse_page("notes/A.md", text)
    assert [(link.target, link.line) for link in page.links] == [("Ledger database", 2), ("Index", 4), ("Body", 9)]
