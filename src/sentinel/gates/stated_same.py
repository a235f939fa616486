"""The vault's own statements of sameness: the rules that merge a name into a page without asking the model.

Seed 000: three mechanisms decide, everything else defers. A person's vault already says, in its own markup,
that two names are one thing in four ways, and code reads each the same way every run:

- the link resolver reaches the page by both names through its title or path (``reached_by_both``: ``Graph
  View`` and ``Graph view``); reached only through an alias the page declares, the alias already is the merge
  and nothing is added (the help vault declares ``Metadata`` for Properties, a broader word: an alias says where
  a link goes, not that the two are one thing, so it does not vouch for anything else);
- the page's own frontmatter declares the name up to spelling, where the name reaches no page
  (``declared_alias``: ``aliases: [Obsidian setting]`` and links to ``Obsidian settings``); it is consulted after
  the coordination gate, since a singular and a plural the vault names apart are two things;
- a link shows the page under a spelling of its title that is the name (``shown_as``: ``[[Core plugins|core
  plugin]]`` and links to ``core plugin``; a link to a heading is about the heading, not the page). A display text
  that is another word is not a statement: prose shows ``[[Properties|metadata]]`` and ``[[Link notes|wikilink]]``,
  what reads well in the sentence, not another name of the page (on the eval vault such display texts would
  have merged Metadata into Properties); and a plural shown for a singular page still meets the coordination
  gate first (``[[Workspace|workspaces]]`` beside "Workspace and the Workspaces plugin");
- the two names are titles of parallel pages, one document in two language folders (``parallel_pages``: the same
  ``permalink`` in ``de/`` and ``en/``), so the two titles are one thing in two languages;
- one page names the other as its translation (``translation_link``: frontmatter ``translation: "[[Settings]]"``,
  or ``translations`` / ``translation_of``).

Each check passes when the vault states it; the caller merges on it. The harness's "everything passes" is then a
vault that says every pair is one thing: the name gates' tests and the machines over the eval vault fail.
``shown_as`` and ``declared_alias`` are consulted after the shape, contexts and coordination gates.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from sentinel.gates import Verdict
from sentinel.vault.links import key_base, link_key
from sentinel.vault.name_words import variant_key


def reached_by_both(name: str, name_page: str | None, title_page: str) -> Verdict[str]:
    """Passes when the index's own link resolution sends the name to the title's page by its file name or path
    (not only through an alias the page declares)."""
    key = link_key(name)
    if name_page is not None and name_page == title_page:
        page_key = link_key(title_page)
        if key == page_key or page_key.endswith("/" + key) or key_base(key) == key_base(page_key):
            return Verdict(True)
    return Verdict(False, f"links written with {name!r} do not reach {title_page} by its name")


def declared_alias(name: str, name_page: str | None, declared: Sequence[str]) -> Verdict[str]:
    """Passes when the name reaches no page and the page's frontmatter declares a spelling of it as an alias."""
    key = variant_key(name)
    if name_page is None and key and any(variant_key(alias) == key for alias in declared):
        return Verdict(True)
    return Verdict(False, f"the page declares no alias spelt like {name!r}")


def shown_as(name: str, title: str, displays: Sequence[str]) -> Verdict[str]:
    """Passes when the name is a spelling of the title and a link to the page (not to one of its headings) shows
    the page as the name: the writer used both spellings for the one page."""
    key = variant_key(name)
    if key and key == variant_key(title) and any(variant_key(display) == key for display in displays):
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


def translation_link(
    name_page: str | None, title_page: str, counterparts: Mapping[str, Collection[str]]
) -> Verdict[str]:
    """Passes when the name's page and the title's page are joined by an explicit translation link (either way)."""
    if name_page is not None and name_page != title_page and title_page in counterparts.get(name_page, ()):
        return Verdict(True)
    return Verdict(False, f"no translation link joins {name_page} and {title_page}")
