"""What the vault's structure says about a pair of names: the facts the sameness rules read (code, no model).

``VaultEvidence.of(db)`` reads the index once per pass: each page's permalink, each page's declared aliases, the
display text of every heading-less wikilink by the page it reaches, and the alignment of parallel pages.

The alignment: pages with one permalink in two folders are one document in two languages (the help vault's
``de/Erweiterungen/Schnellauswahl.md`` and ``en/Plugins/Quick switcher.md``); so are pages an explicit translation
link joins (frontmatter ``translation``, ``translations`` or ``translation_of`` naming the counterpart page:
``translation: "[[Guide]]"``). Their wikilinks, in order, are
compared by what they reach (a page's permalink, else its path); a link both reach is an anchor. Between two
anchors, where each page has exactly one link and one of them reaches no page while the other reaches one, the
unresolved name stands where the other page names that page: ``[[Einstellungen]]`` in a German page where the
English one has ``[[Settings]]``. A name every placement of which points at one document (its pages in several
folders count as one) is aligned with that document's pages; a name placed at two documents is aligned with
none. This is a pointer, not a statement: the model still has to confirm it (``gates.pointed``).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import combinations

from sentinel.index.resolve import resolve_keys
from sentinel.vault.links import link_key


@dataclass(frozen=True)
class Link:
    key: str  # the link's target key (what an unresolved name is known by)
    target: str  # as written
    reaches: str | None  # the page it resolves to


_TRANSLATION_KEYS = ("translation", "translations", "translation_of")  # frontmatter naming a page's counterpart
_WIKILINK = re.compile(r"\[\[([^\]|#]+)")


@dataclass
class VaultEvidence:
    permalinks: dict[str, str] = field(default_factory=dict)  # page -> permalink
    counterparts: dict[str, set[str]] = field(default_factory=dict)  # page -> pages its translation links name
    _documents: dict[str, str] = field(default_factory=dict)  # page -> its document, for translation-linked pages
    declared: dict[str, list[str]] = field(default_factory=dict)  # page -> aliases its frontmatter declares
    displays: dict[str, list[str]] = field(default_factory=dict)  # page -> display texts of piped links to it
    aligned: dict[str, set[str]] = field(default_factory=dict)  # unresolved key -> pages it stands in for
    aligned_names: dict[str, str] = field(default_factory=dict)  # unresolved key -> the name as written
    placements: dict[str, int] = field(default_factory=dict)  # unresolved key -> how many places aligned it

    @classmethod
    def of(cls, db: sqlite3.Connection) -> VaultEvidence:
        evidence = cls()
        named: dict[str, list[str]] = {}
        for path, raw in db.execute("SELECT path, frontmatter FROM pages ORDER BY path"):
            meta = _meta(raw)
            if isinstance(link := meta.get("permalink"), str) and link.strip():
                evidence.permalinks[path] = link.strip().strip("/").casefold() or "/"  # "/": the home pages
            named[path] = [target for key in _TRANSLATION_KEYS for target in _targets(meta.get(key))]
        found = resolve_keys(db, [link_key(t) for targets in named.values() for t in targets])
        for path, targets in named.items():
            for target in targets:
                if (other := found.get(link_key(target))) and other != path:
                    evidence.counterparts.setdefault(path, set()).add(other)
                    evidence.counterparts.setdefault(other, set()).add(path)
        evidence._join_documents()
        for path, alias in db.execute("SELECT path, alias FROM aliases ORDER BY path, rowid"):
            evidence.declared.setdefault(path, []).append(alias)
        for reaches, display in db.execute(  # piped links (the display differs from the target) a person placed
            """SELECT resolved, display FROM links WHERE kind = 'wikilink' AND resolved IS NOT NULL AND places = 1
               AND (heading IS NULL OR heading = '') AND display != '' AND display != target ORDER BY id"""
        ):
            evidence.displays.setdefault(reaches, []).append(display)
        evidence._align(db)
        return evidence

    def document(self, page: str) -> str:
        """What a page is one language of: its permalink, else (for pages joined only by translation links) the
        first path of its group, else itself."""
        return self.permalinks.get(page) or self._documents.get(page) or page

    def _join_documents(self) -> None:
        """Pages joined by explicit translation links are one document: they take one name (a member's
        permalink, else the first member's path), so parallel pages are grouped by either statement."""
        seen: set[str] = set()
        for start in sorted(self.counterparts):
            if start in seen:
                continue
            group, todo = set(), [start]
            while todo:
                page = todo.pop()
                if page not in group:
                    group.add(page)
                    todo.extend(self.counterparts.get(page, ()))
            seen |= group
            name = next((self.permalinks[p] for p in sorted(group) if p in self.permalinks), min(group))
            for page in group:
                self._documents[page] = name

    def _align(self, db: sqlite3.Connection) -> None:
        by_link: dict[str, list[str]] = defaultdict(list)
        for path in sorted({*self.permalinks, *self._documents}):
            by_link[self.document(path)].append(path)
        placed: dict[str, set[str]] = defaultdict(set)  # unresolved key -> documents it was placed at
        pages_of: dict[str, set[str]] = defaultdict(set)  # document -> the pages placements named
        for pages in by_link.values():
            for a, b in combinations(pages, 2):
                if a.split("/", 1)[0] == b.split("/", 1)[0]:
                    continue
                for name, page in self._standing_in(self._content_links(db, a), self._content_links(db, b)):
                    placed[name.key].add(self.document(page))
                    self.placements[name.key] = self.placements.get(name.key, 0) + 1
                    pages_of[self.document(page)].add(page)
                    self.aligned_names.setdefault(name.key, name.target)
        for key, documents in placed.items():
            if len(documents) == 1:
                self.aligned[key] = set(pages_of[next(iter(documents))])

    def _content_links(self, db: sqlite3.Connection, page: str) -> list[Link]:
        """The page's wikilinks, but those naming its counterparts (its frontmatter's translation links)."""
        named = self.counterparts.get(page, set())
        return [link for link in _links(db, page) if link.reaches not in named]

    def _standing_in(self, a: list[Link], b: list[Link]) -> list[tuple[Link, str]]:
        def token(link: Link, side: str, index: int) -> str:
            return self.document(link.reaches) if link.reaches else f"\0{side}{index}"  # unresolved: never an anchor

        tokens_a = [token(link, "a", i) for i, link in enumerate(a)]
        tokens_b = [token(link, "b", i) for i, link in enumerate(b)]
        found = []
        previous_a = previous_b = 0
        for block in SequenceMatcher(None, tokens_a, tokens_b, autojunk=False).get_matching_blocks():
            gap_a, gap_b = a[previous_a : block.a], b[previous_b : block.b]
            if len(gap_a) == 1 and len(gap_b) == 1:
                (one,), (other,) = gap_a, gap_b
                if one.reaches is None and other.reaches is not None:
                    found.append((one, other.reaches))
                elif other.reaches is None and one.reaches is not None:
                    found.append((other, one.reaches))
            previous_a, previous_b = block.a + block.size, block.b + block.size
        return found


def _meta(raw: str) -> dict[str, object]:
    try:
        meta = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _targets(value: object) -> list[str]:
    """The pages a translation field names: ``"[[Guide]]"``, ``Guide``, or a list of either."""
    values = value if isinstance(value, list) else [value]
    found = []
    for item in values:
        if isinstance(item, str) and item.strip():
            links = _WIKILINK.findall(item)
            found += [link.strip() for link in links] if links else [item.strip()]
    return found


def _links(db: sqlite3.Connection, path: str) -> list[Link]:
    rows = db.execute(
        "SELECT target_key, target, resolved FROM links WHERE source = ? AND kind = 'wikilink' ORDER BY id", (path,)
    )
    return [Link(key, target, reaches) for key, target, reaches in rows if "/" not in key or reaches]
