"""The vault's own statements of sameness: the rules that merge a name into a page without asking the model.

Seed 000: three mechanisms decide, everything else defers. A person's vault already says, in its own markup,
that two names are one thing in four ways, and code reads each the same way every run:

- the link resolver reaches the page by both names (``reached_by_both``: a case spelling, a path, an alias);
- the page's own frontmatter declares the name (``declared_alias``: ``aliases: [Obsidian settings]``); a spelling
  of a declared alias is only pointed at (the pointer gate), since a singular and a plural can be two things;
- a link shows the page under the name (``shown_as``: ``[[Core plugins|core plugin]]``; a link to a heading is
  about the heading, not the page, and does not count);
- the two names are titles of parallel pages, one document in two language folders (``parallel_pages``: the same
  ``permalink`` in ``de/`` and ``en/``), so the two titles are one thing in two languages.

Each check passes when the vault states it; the caller merges on it. The harness's "everything passes" is then a
vault that says every pair is one thing: the name gates' tests and the machines over the eval vault fail.
Not here: a link's display text that adds or replaces words (``[[Obsidian Flavored Markdown|Markdown]]``) is a
shortening the shape gates defer; ``shown_as`` is consulted only after them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sentinel.gates import Verdict
from sentinel.gates.verbatim import normalise
from sentinel.vault.name_words import variant_key


def reached_by_both(name_page: str | None, title_page: str) -> Verdict[str]:
    """Passes when the index's own link resolution already sends the name to the title's page."""
    if name_page is not None and name_page == title_page:
        return Verdict(True)
    return Verdict(False, f"links written with the name do not reach {title_page}")


def declared_alias(name: str, declared: Sequence[str]) -> Verdict[str]:
    """Passes when the page's frontmatter declares the name as an alias (case and spacing aside)."""
    key = normalise(name)
    if key and any(normalise(alias) == key for alias in declared):
        return Verdict(True)
    return Verdict(False, f"the page declares no alias spelt like {name!r}")


def shown_as(name: str, displays: Sequence[str]) -> Verdict[str]:
    """Passes when a link to the page (not to one of its headings) shows it as the name, up to spelling."""
    key = variant_key(name)
    if key and any(variant_key(display) == key for display in displays):
        return Verdict(True)
    return Verdict(False, f"no link shows the page as {name!r}")


def _folder(path: str) -> str:
    return path.split("/", 1)[0] if "/" in path else ""


def parallel_pages(name_page: str | None, title_page: str, permalinks: Mapping[str, str]) -> Verdict[str]:
    """Passes when the name's page and the title's page are one document in two folders: the same permalink."""
    if name_page is None or name_page == title_page:
        return Verdict(False, "the name has no page of its own to be parallel to")
    link = permalinks.get(name_page, "")
    if link and link == permalinks.get(title_page) and _folder(name_page) != _folder(title_page):
        return Verdict(True)
    return Verdict(False, f"{name_page} and {title_page} are not one document in two folders")
