"""The health line: what the vault owes, and what the last pass did, appended to tool output only when there is
something to say (a pass that took up no name and made nothing adds nothing).

It never acts. Whether a long concept page should be split, or an undefined concept researched, is a
judgement about the subject, left to the person.
"""

from __future__ import annotations

import sqlite3

from sentinel.maintain import pass_yield
from sentinel.maintain.queue import count_awaiting, failed_analyses, wanted_undefined
from sentinel.maintain.trace import remembered_broken
from sentinel.paths import Role

MANY_REFERENCES = 4  # a concept this many pages reference, with nothing defining it, is worth a mention
MAX_SECTIONS = 12  # a concept page past this many sections may want splitting (the person decides)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def bloated_concept_pages(db: sqlite3.Connection) -> list[str]:
    """Concept pages (wiki/) with more than ``MAX_SECTIONS`` headings."""
    return [
        r[0]
        for r in db.execute(
            """SELECT h.path FROM headings h JOIN pages p ON p.path = h.path WHERE p.role = ?
               GROUP BY h.path HAVING COUNT(*) > ? ORDER BY h.path""",
            (Role.WIKI.value, MAX_SECTIONS),
        )
    ]


def health_line(db: sqlite3.Connection) -> str:
    """One line of what the vault owes, or "" when nothing is owed."""
    parts = []
    awaiting = count_awaiting(db)
    if awaiting:
        parts.append(_plural(awaiting, "page awaiting analysis", "pages awaiting analysis"))
    failed = len(failed_analyses(db))
    if failed:
        parts.append(_plural(failed, "failed analysis", "failed analyses"))
    wanted = wanted_undefined(db, MANY_REFERENCES)
    if wanted:
        names = ", ".join(wanted[:3]) + (", ..." if len(wanted) > 3 else "")
        parts.append(
            _plural(len(wanted), "concept", "concepts")
            + f" that {MANY_REFERENCES}+ pages reference and nothing defines ({names})"
        )
    bloated = bloated_concept_pages(db)
    if bloated:
        parts.append(_plural(len(bloated), "concept page", "concept pages") + f" past {MAX_SECTIONS} sections")
    broken = remembered_broken(db)
    if broken:
        parts.append(
            _plural(len(broken), "generated page", "generated pages")
            + f" whose quotes no longer check out ({', '.join(broken[:3])}{', ...' if len(broken) > 3 else ''};"
            " see `sentinel trace`)"
        )
    work = pass_yield.last(db)
    if work is not None and work.did_something():
        parts.append(work.line())
    return ("health: " + "; ".join(parts)) if parts else ""
