"""Frontmatter facets: ``type:concept status:seedling tag:x role:note`` as SQL over the pages table."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sentinel.errors import BadInput
from sentinel.paths import Role

TOKEN = re.compile(r'(\w[\w-]*):("[^"]*"|\S+)')


class FacetError(BadInput, ValueError):
    """A filter the listing cannot understand, with what would work instead."""


@dataclass
class Facets:
    """A parsed filter: conditions on frontmatter keys, tags and roles, plus the words that were not facets."""

    fields: list[tuple[str, str]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    # scope value -> folders whose pages are in that scope (SearchSettings.scope_folders; sentinel.search.scope)
    scope_folders: dict[str, list[str]] = field(default_factory=dict)

    def sql(self, alias: str = "pages") -> tuple[str, list[str]]:
        """A WHERE fragment (``1`` when empty) and its parameters. Keys and values match case-insensitively
        (``Type:`` is ``type:``, as Obsidian's properties are), and a frontmatter list matches when any of its
        items does."""
        clauses: list[str] = []
        params: list[str] = []
        for key, value in self.fields:
            clauses.append(
                f"""EXISTS (SELECT 1 FROM json_each({alias}.frontmatter) k
                   WHERE lower(k.key) = ? AND ({_as_text("k")} = ? OR (k.type = 'array'
                     AND EXISTS (SELECT 1 FROM json_each(k.value) j WHERE {_as_text("j")} = ?))))"""
            )
            params += [key.casefold(), value.casefold(), value.casefold()]
            folders = self.scope_folders.get(value.casefold(), []) if key.casefold() == "scope" else []
            if folders:  # a page in a folder of that scope is in it, whatever its frontmatter says
                likes = " OR ".join(f"{alias}.path LIKE ? ESCAPE '\\'" for _ in folders)
                clauses[-1] = f"({clauses[-1]} OR {likes})"
                params += [_under(folder) for folder in folders]
        for tag in self.tags:
            clauses.append(f"EXISTS (SELECT 1 FROM tags t WHERE t.path = {alias}.path AND lower(t.tag) = ?)")
            params.append(tag.casefold().lstrip("#"))
        if self.roles:
            clauses.append(f"{alias}.role IN ({','.join('?' * len(self.roles))})")
            params += self.roles
        return (" AND ".join(clauses) or "1"), params


def _as_text(each: str) -> str:
    """A json_each value as the text a person types: JSON ``true``/``false`` read back as ``1``/``0`` by SQLite,
    so booleans are named by their JSON type (``mobile:false``), everything else cast and folded."""
    named = f"WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE lower(CAST({each}.value AS TEXT))"
    return f"(CASE {each}.type {named} END)"


def _under(folder: str) -> str:
    """A LIKE pattern (escape ``\\``) for the pages under ``folder``."""
    return folder.strip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"


ROLE_NAMES = frozenset(role.value for role in Role)


def parse_facets(text: str) -> Facets:
    """Parse ``key:value`` tokens (quote values with spaces: ``type:"research note"``); other words are kept."""
    facets = Facets()
    rest = TOKEN.sub(lambda m: _take(facets, m.group(1).casefold(), m.group(2).strip('"')), text)
    facets.words = rest.split()
    return facets


def _take(facets: Facets, key: str, value: str) -> str:
    if key == "tag":
        facets.tags.append(value)
    elif key == "role":
        if value.casefold() not in ROLE_NAMES:
            raise FacetError(f"role:{value} is not a role; use one of {', '.join(sorted(ROLE_NAMES))}")
        facets.roles.append(value.casefold())
    else:
        facets.fields.append((key, value))
    return " "
