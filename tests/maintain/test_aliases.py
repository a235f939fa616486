"""Where an accepted merge is written: the page's own frontmatter, touched textually, verified, atomic."""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest

from sentinel.maintain.aliases import AliasRefused, add_alias


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Body.\n", '---\naliases:\n  - "GRB"\n---\nBody.\n'),
        ("---\ntags: [a]  # mine\n---\nBody.\n", '---\ntags: [a]  # mine\naliases:\n  - "GRB"\n---\nBody.\n'),
        (
            "---\naliases: [burst, flash]\nz: 1\n---\nB\n",
            '---\naliases:\n  - "burst"\n  - "flash"\n  - "GRB"\nz: 1\n---\nB\n',
        ),
        ("---\naliases:\n  - burst # old\nz: 1\n---\nB\n", '---\naliases:\n  - burst # old\n  - "GRB"\nz: 1\n---\nB\n'),
        ("---\naliases:\n- burst\n---\nB\n", '---\naliases:\n- burst\n- "GRB"\n---\nB\n'),
        ("---\nalias: burst\n---\nB\n", '---\nalias:\n  - "burst"\n  - "GRB"\n---\nB\n'),
        ("---\naliases:\n---\nB\n", '---\naliases:\n  - "GRB"\n---\nB\n'),
    ],
)
def test_alias_is_added_and_nothing_else_changes(tmp_path: Path, before: str, after: str) -> None:
    page = tmp_path / "page.md"
    page.write_text(before, encoding="utf-8")
    add_alias(page, "GRB")
    assert page.read_text(encoding="utf-8") == after


def test_broken_frontmatter_is_refused_and_left_alone(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("---\ntags: [a\n---\nBody\n", encoding="utf-8")
    with pytest.raises(AliasRefused, match="does not parse"):
        add_alias(page, "GRB")
    assert page.read_text(encoding="utf-8") == "---\ntags: [a\n---\nBody\n"


def test_names_with_quotes_and_colons_stay_one_alias(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("Body\n", encoding="utf-8")
    add_alias(page, 'Note: "quoted" #1')
    assert frontmatter.loads(page.read_text(encoding="utf-8")).metadata["aliases"] == ['Note: "quoted" #1']


def test_a_change_beyond_the_one_alias_is_refused(tmp_path: Path) -> None:
    """The textual edit is checked by parsing: a frontmatter shape it would damage is refused, untouched."""
    page = tmp_path / "page.md"
    before = "---\naliases: [a,\n  b]\n---\nBody\n"  # a flow list over two lines: the one-line rewrite would break it
    page.write_text(before, encoding="utf-8")
    with pytest.raises(AliasRefused, match="more than that one entry"):
        add_alias(page, "GRB")
    assert page.read_text(encoding="utf-8") == before
