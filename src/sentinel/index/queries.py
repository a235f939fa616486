"""Read-only questions about the index that several entry points ask."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from dataclasses import dataclass

from sentinel.paths import Role


@dataclass(frozen=True)
class Unresolved:
    name: str  # the spelling most pages use
    key: str
    pages: int  # distinct link-placing pages that reach for it
    links: int


def unresolved(
    db: sqlite3.Connection, limit: int = 50, offset: int = 0, placed_by: Collection[Role] = ()
) -> list[Unresolved]:
    """Names that links reach for and no page answers to, most-wanted first.

    Only link-placing roles count (notes, wiki, other); attachments are not concepts. ``placed_by`` keeps only
    links placed by pages of those roles (the growth queue proper: ``gates.derived.growth_queue``).
    """
    roles = sorted(role.value for role in placed_by)
    by_role = f"AND source IN (SELECT path FROM pages WHERE role IN ({','.join('?' * len(roles))}))" if roles else ""
    rows = db.execute(
        f"""SELECT target_key, COUNT(DISTINCT source) AS pages, COUNT(*) AS links,
                  (SELECT target FROM links l2 WHERE l2.target_key = l.target_key AND l2.resolved IS NULL
                   GROUP BY target ORDER BY COUNT(*) DESC, target LIMIT 1) AS name
           FROM links l
           WHERE resolved IS NULL AND places = 1 AND kind != 'attachment' {by_role}
           GROUP BY target_key ORDER BY pages DESC, links DESC, target_key LIMIT ? OFFSET ?""",
        (*roles, limit, offset),
    ).fetchall()
    return [Unresolved(r["name"], r["target_key"], r["pages"], r["links"]) for r in rows]


def stats(db: sqlite3.Connection) -> dict[str, object]:
    """Counts that tell the state of the index at a glance."""

    def one(sql: str) -> int:
        return int(db.execute(sql).fetchone()[0] or 0)

    roles = {r[0]: r[1] for r in db.execute("SELECT role, COUNT(*) FROM pages GROUP BY role ORDER BY role")}
    return {
        "pages": one("SELECT COUNT(*) FROM pages"),
        "pages_by_role": roles,
        "links": one("SELECT COUNT(*) FROM links"),
        "links_unresolved": one("SELECT COUNT(*) FROM links WHERE resolved IS NULL AND kind != 'attachment'"),
        "unresolved_names": one(
            "SELECT COUNT(DISTINCT target_key) FROM links WHERE resolved IS NULL AND places = 1 "
            "AND kind != 'attachment'"
        ),
        "aliases": one("SELECT COUNT(*) FROM aliases"),
        "chunks": one("SELECT COUNT(*) FROM chunks"),
        "pages_with_problems": one("SELECT COUNT(*) FROM pages WHERE problem IS NOT NULL"),
    }


def problems(db: sqlite3.Connection) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in db.execute("SELECT path, problem FROM pages WHERE problem IS NOT NULL ORDER BY path")]
