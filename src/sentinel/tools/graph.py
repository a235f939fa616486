"""graph: the link structure around a page or a name, written as prose."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from sentinel.index.resolve import resolve_keys
from sentinel.search.scope import hidden_from_key, refused_by_key
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import Status, ToolResult, retry, stop
from sentinel.vault.links import link_key

DESCRIPTION = (
    "Show how a page (path or name) connects: what it points at, what points at it, which of its links reach "
    "no page yet and how many pages reach for each such name. Names with no page must not be read."
)

SHOWN = 40


def _named(rows: list[str], what: str) -> str:
    if not rows:
        return f"{what}: none"
    shown = ", ".join(rows[:SHOWN])
    rest = f", and {len(rows) - SHOWN} more (listing shows them all)" if len(rows) > SHOWN else ""
    return f"{what} ({len(rows)}): {shown}{rest}"


def _reach_counts(db: sqlite3.Connection, keys: list[str]) -> dict[str, int]:
    marks = ",".join("?" * len(keys))
    sql = (
        f"SELECT target_key, COUNT(DISTINCT source) FROM links WHERE target_key IN ({marks}) AND resolved IS NULL "
        "AND places = 1 GROUP BY target_key"
    )
    return {r[0]: r[1] for r in db.execute(sql, keys)} if keys else {}


@dataclass
class Connections:
    """How one page connects, as data (``graph`` renders it for the model, ``answer.link`` as prose)."""

    path: str
    aliases: list[str] = field(default_factory=list)
    points_at: list[str] = field(default_factory=list)
    pointed_at_by: list[str] = field(default_factory=list)
    missing: list[tuple[str, int]] = field(default_factory=list)  # (name with no page, pages reaching for it)


@dataclass
class Unresolved:
    """A name no page has: the pages that reach for it."""

    name: str
    sources: list[str]


def connections(db: sqlite3.Connection, target: str) -> Connections | Unresolved:
    """The link structure around ``target`` (a path or a name)."""
    wanted = target.strip()
    row = db.execute("SELECT path FROM pages WHERE path = ?", (wanted,)).fetchone()
    key = link_key(wanted)
    path = row["path"] if row else resolve_keys(db, [key])[key]
    if path is None:
        sources = [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT source FROM links WHERE target_key = ? AND places = 1 ORDER BY source", (key,)
            )
        ]
        return Unresolved(wanted, sources)
    outgoing = db.execute(
        "SELECT target, target_key, resolved FROM links WHERE source = ? AND kind != 'attachment' ORDER BY id",
        (path,),
    ).fetchall()
    seen: set[str] = set()
    resolved, missing = [], []
    for link in outgoing:
        if link["target_key"] in seen:
            continue
        seen.add(link["target_key"])
        if link["resolved"]:
            resolved.append(link["resolved"])
        else:
            missing.append((link["target"], link["target_key"]))
    counts = _reach_counts(db, [k for _, k in missing])
    incoming = [
        r[0]
        for r in db.execute(
            "SELECT DISTINCT source FROM links WHERE resolved = ? AND source != ? ORDER BY source", (path, path)
        )
    ]
    aliases = [r[0] for r in db.execute("SELECT alias FROM aliases WHERE path = ?", (path,))]
    return Connections(
        path, aliases, sorted(set(resolved)), incoming, [(name, counts.get(k, 0)) for name, k in missing]
    )


def connections_in_reach(ctx: ToolContext, wanted: str) -> Connections | Unresolved | str:
    """``connections`` as the caller's key may see them: pages in scopes the key never reaches are not named,
    and such a page itself is refused (the reason, as a string)."""
    found = connections(ctx.reader(), wanted)
    if hidden := hidden_from_key(ctx.reader(), ctx.settings):  # a key limited to scopes: those pages are not named
        if isinstance(found, Connections) and (refused := refused_by_key(ctx.reader(), ctx.settings, found.path)):
            return refused
        if isinstance(found, Connections):
            found.points_at = [p for p in found.points_at if p not in hidden]
            found.pointed_at_by = [p for p in found.pointed_at_by if p not in hidden]
        else:
            found.sources = [p for p in found.sources if p not in hidden]
    return found


def graph(ctx: ToolContext, target: str) -> ToolResult:
    wanted = target.strip()
    if not wanted:
        return retry("give a page path (notes/Topic.md) or a name (Topic)")
    found = connections_in_reach(ctx, wanted)
    if isinstance(found, str):
        return stop(found)
    if isinstance(found, Unresolved):
        if not found.sources:
            return ToolResult(Status.DONE, f"no page is named '{wanted}' and no page links to that name")
        return ToolResult(
            Status.OK,
            f"no page is named '{wanted}' yet (do not read it: it does not exist). "
            + _named(found.sources, "pages that reach for it")
            + ". It waits in the growth queue until the sources define it.",
        )
    missing_text = [f"'{name}' (no page; {count} pages reach for it)" for name, count in found.missing]
    lines = [
        f"{found.path}" + (f" (also called: {', '.join(found.aliases)})" if found.aliases else ""),
        _named(found.points_at, "points at"),
        _named(found.pointed_at_by, "pointed at by"),
        _named(missing_text, "links that reach no page"),
    ]
    return ToolResult(Status.OK, "\n".join(lines))
