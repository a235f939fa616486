"""The health line: appended to tool output only when there is something to say. It never acts."""

from __future__ import annotations

import sqlite3

from sentinel.paths import Role

MANY_REFERENCES = 4  # a name this many pages reach for, with no page, is worth telling the person about
MAX_SECTIONS = 12  # a concept page past this many sections may want splitting (the person decides)


def health_line(db: sqlite3.Connection) -> str:
    """One line of what the vault owes, or "" when nothing is owed."""
    awaiting = db.execute(
        """SELECT COUNT(*) FROM pages p LEFT JOIN analysis a ON a.path = p.path AND a.hash = p.hash
           WHERE p.role != ? AND p.problem IS NULL AND a.path IS NULL""",
        (Role.CONVERSATION.value,),
    ).fetchone()[0]
    failed = db.execute(
        "SELECT COUNT(*) FROM analysis a JOIN pages p ON p.path = a.path AND p.hash = a.hash WHERE a.status = 'failed'"
    ).fetchone()[0]
    wanted = db.execute(
        """SELECT COUNT(*) FROM (SELECT target_key FROM links WHERE resolved IS NULL AND places = 1
           AND kind != 'attachment' GROUP BY target_key HAVING COUNT(DISTINCT source) >= ?)""",
        (MANY_REFERENCES,),
    ).fetchone()[0]
    bloated = db.execute(
        """SELECT COUNT(*) FROM (SELECT h.path FROM headings h JOIN pages p ON p.path = h.path
           WHERE p.role = ? GROUP BY h.path HAVING COUNT(*) > ?)""",
        (Role.WIKI.value, MAX_SECTIONS),
    ).fetchone()[0]
    parts = []
    if awaiting:
        parts.append(f"{awaiting} pages awaiting analysis")
    if failed:
        parts.append(f"{failed} analyses failed")
    if wanted:
        parts.append(f"{wanted} concepts referenced by {MANY_REFERENCES}+ pages have no page")
    if bloated:
        parts.append(f"{bloated} concept pages past {MAX_SECTIONS} sections")
    return ("health: " + "; ".join(parts)) if parts else ""
