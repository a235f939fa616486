"""What the vault owes the maintenance pass, read from the index (the content hash decides; no model)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sentinel.index.resolve import resolve_keys
from sentinel.paths import ANALYSED_ROLES, Role

_ANALYSED = tuple(sorted(role.value for role in ANALYSED_ROLES))
_MARKS = ",".join("?" * len(_ANALYSED))
# A page the sync could not read (too large, binary, unreadable) has no text to analyse.
_READABLE = "(p.problem IS NULL OR p.problem NOT LIKE 'skipped:%')"
_AWAITING = f"""FROM pages p LEFT JOIN analysis a ON a.path = p.path AND a.hash = p.hash
                WHERE a.path IS NULL AND p.role IN ({_MARKS}) AND {_READABLE}"""


@dataclass(frozen=True)
class Due:
    path: str
    role: Role
    size: int


def awaiting_analysis(db: sqlite3.Connection) -> list[Due]:
    """Pages with no analysis row for their current content hash: non-derived pages first (so a wiki page is
    gated against concepts extracted in this same pass), then smallest first (most pages per minute)."""
    rows = db.execute(
        f"SELECT p.path, p.role, p.size {_AWAITING} ORDER BY p.role = ?, p.size, p.path",
        (*_ANALYSED, Role.WIKI.value),
    ).fetchall()
    return [Due(r["path"], Role(r["role"]), r["size"]) for r in rows]


def count_awaiting(db: sqlite3.Connection) -> int:
    return int(db.execute(f"SELECT COUNT(*) {_AWAITING}", _ANALYSED).fetchone()[0])


def failed_analyses(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """Pages whose current text failed analysis, with the reason (not retried until edited or asked to)."""
    return [
        (r[0], r[1])
        for r in db.execute(
            """SELECT a.path, a.reason FROM analysis a JOIN pages p ON p.path = a.path AND p.hash = a.hash
               WHERE a.status = 'failed' ORDER BY a.path"""
        )
    ]


def forget_failures(db: sqlite3.Connection) -> int:
    """Drop failed analysis rows so those pages are due again (``sentinel maintain --retry-failed``)."""
    return db.execute("DELETE FROM analysis WHERE status = 'failed'").rowcount


def wanted_undefined(db: sqlite3.Connection, min_pages: int) -> list[str]:
    """Names at least ``min_pages`` pages reference (an unresolved link or a kept concept) that no page
    answers to, most-referenced first."""
    rows = db.execute(
        """WITH refs(key, path, name) AS (
               SELECT target_key, source, target FROM links
               WHERE resolved IS NULL AND places = 1 AND kind != 'attachment'
               UNION SELECT concept_key, path, concept FROM concept_mentions)
           SELECT key, MIN(name) AS name, COUNT(DISTINCT path) AS n FROM refs
           GROUP BY key HAVING n >= ? ORDER BY n DESC, key""",
        (min_pages,),
    ).fetchall()
    answered = resolve_keys(db, [r["key"] for r in rows])
    return [r["name"] for r in rows if answered.get(r["key"]) is None]
