"""Turning ranked page paths into result lines: exact lookup, quality labels, summary lines, chunks."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable

from sentinel.index.resolve import shortest_names
from sentinel.search import results as r
from sentinel.search.families import Collapsed
from sentinel.search.results import Hit, Rung
from sentinel.search.summaries import SummarySource, line, page_summaries
from sentinel.search.view import per_generation
from sentinel.vault.entries import ENTRY_UNIT, NUMBERED
from sentinel.vault.links import link_key

EXACT_LIMIT = 5


def _marks(items: list[object]) -> str:
    return ",".join("?" * len(items))


def exact_pages(db: sqlite3.Connection, query: str) -> list[tuple[str, str]]:
    """Pages the query names outright, with their roles: by vault path, file name (or a path suffix of it)
    or alias.

    ``[[Name]]`` is read as ``Name``. Path matches come first, then names, then aliases; among equals the
    shortest path (Obsidian's rule for ambiguous names), then the alphabetically first.
    """
    key = link_key(query.strip().removeprefix("[[").removesuffix("]]"))
    if not key or len(key) > 1024:
        return []
    base = key.rsplit("/", 1)[-1]
    rows = db.execute(
        """SELECT path, role, CASE WHEN path_key = ?1 THEN 0 ELSE 1 END AS kind FROM pages
             WHERE path_key = ?1 OR (name_key = ?2 AND (path_key = ?2 OR path_key LIKE '%/' || ?1 ESCAPE '\\'))
           UNION ALL
           SELECT a.path, p.role, 2 FROM aliases a JOIN pages p ON p.path = a.path WHERE a.alias_key = ?1""",
        (key, base),
    ).fetchall()
    ordered = sorted(rows, key=lambda row: (row[2], len(row[0]), row[0]))
    seen: dict[str, str] = {}
    for path, role, _ in ordered:
        seen.setdefault(path, role)
    return list(seen.items())[:EXACT_LIMIT]


def _is(value: object, wanted: str) -> bool:
    """Whether a frontmatter value (json_extract's result: a scalar, or JSON text for a list) is ``wanted``."""
    if isinstance(value, str) and value.startswith("["):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    values = value if isinstance(value, list) else [value]
    return any(isinstance(v, str) and v.strip().casefold() == wanted for v in values)


def quality_flags(db: sqlite3.Connection, paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Quality labels of those ``paths`` that have any: ``seedling`` (status: seedling), ``low-conf``
    (confidence: low). Each label ranks its page down (see ``SearchSettings.quality_penalty``)."""
    flagged = per_generation(db, "quality_flags", lambda: _read_quality_flags(db))
    return {p: flagged[p] for p in paths if p in flagged}


def _read_quality_flags(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    flags: dict[str, tuple[str, ...]] = {}
    for path, status, confidence in db.execute(
        """SELECT path, json_extract(frontmatter, '$.status'), json_extract(frontmatter, '$.confidence')
           FROM pages WHERE frontmatter LIKE '%seedling%' OR frontmatter LIKE '%"confidence"%'"""
    ):
        found = ((r.SEEDLING,) if _is(status, "seedling") else ()) + (
            (r.LOW_CONFIDENCE,) if _is(confidence, "low") else ()
        )
        if found:
            flags[path] = found
    return flags


def build_hits(
    db: sqlite3.Connection,
    window: list[str],
    rung: Rung,
    exact: set[str],
    found_by: dict[str, tuple[str, ...]],
    flags: dict[str, tuple[str, ...]],
    chunk_order: dict[str, list[int]],
    translations: Collapsed | None = None,
) -> list[Hit]:
    """Result lines for the ranked pages in ``window``; ``translations`` says which of them stand for a
    translation family (``also_in``, ``copies``)."""
    if not window:
        return []
    chunks = _chunks_for(db, window, chunk_order) if rung == "body" else {}
    # a summary line only where one is shown: a body hit shows its chunk (a page's summary line, its lead cut
    # from its first unit, cost ~0.15 ms CPU a hit at 10k synthetic pages; docs/retrieval.md, "Stop 55, h55e")
    titles = _titles(db, window) if chunks else None
    lined: list[object] = [p for p in window if titles is None or (p in titles and p not in chunks)]
    lines = {s.path: s for s in page_summaries(db, f"p.path IN ({_marks(lined)})", lined)} if lined else {}
    titles = titles if titles is not None else {path: page.title for path, page in lines.items()}
    names = shortest_names(db, titles)
    dates = page_dates(db, window)
    also_in = translations.also_in if translations else {}
    copies = translations.copies if translations else {}
    hits = []
    for path in window:
        if path not in titles:
            continue  # deleted between ranking and now
        labels = ((r.EXACT,) if path in exact else ()) + flags.get(path, ())
        labels += (r.GRAPH,) if found_by.get(path) == (r.LEG_GRAPH,) else ()
        legs = ((r.LEG_EXACT,) if path in exact else ()) + found_by.get(path, ())
        if rung == "summary" or path not in chunks:
            if path not in lines:
                continue  # deleted between the two reads
            page = lines[path]
            if page.summary.source is SummarySource.LEAD:
                labels += (r.EXCERPT,)
            hits.append(
                Hit(
                    path,
                    page.title,
                    "summary",
                    line(page.summary.text),
                    summary_source=page.summary.source.value,
                    labels=labels,
                    legs=legs,
                    name=names[path],
                    date=dates.get(path, ""),
                    also_in=also_in.get(path, ()),
                    copies=copies.get(path, ()),
                )
            )
            continue
        trail, heading, text = chunks[path]
        hits.append(
            Hit(
                path,
                titles[path],
                "body",
                text,
                heading=heading,
                trail=trail,
                labels=labels,
                legs=legs,
                name=names[path],
                date=dates.get(path, ""),
                also_in=also_in.get(path, ()),
                copies=copies.get(path, ()),
            )
        )
    return hits


def _titles(db: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """Each page's title, for the pages still in the index."""
    batch: list[object] = list(paths)
    return {str(p): t for p, t in db.execute(f"SELECT path, title FROM pages WHERE path IN ({_marks(batch)})", batch)}


def page_dates(db: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """Each page's date as the index keeps it (``pages.date``: frontmatter, title, else the file's)."""
    if not paths:
        return {}
    batch: list[object] = list(paths)
    return {
        str(p): str(d) for p, d in db.execute(f"SELECT path, date FROM pages WHERE path IN ({_marks(batch)})", batch)
    }


def _chunks_for(
    db: sqlite3.Connection, paths: list[str], chunk_order: dict[str, list[int]]
) -> dict[str, tuple[str, str, str]]:
    """(trail, heading, text) of the chunk each page shows: its best-ranked one, else its first."""
    chosen: dict[str, tuple[str, str, str]] = {}
    ranked = [chunk_order[p][0] for p in paths if chunk_order.get(p)]
    if ranked:
        batch: list[object] = list(ranked)
        for path, trail, heading, text in db.execute(
            f"SELECT path, trail, heading, text FROM chunks WHERE id IN ({_marks(batch)})", batch
        ):
            chosen[path] = (trail, heading, text)
    rest: list[object] = [p for p in paths if p not in chosen]
    if rest:
        for path, trail, heading, text in db.execute(
            f"""SELECT c.path, c.trail, c.heading, c.text FROM chunks c
                WHERE c.path IN ({_marks(rest)})
                  AND c.ordinal = (SELECT MIN(ordinal) FROM chunks c2 WHERE c2.path = c.path)""",
            rest,
        ):
            chosen[path] = (trail, heading, text)
    return chosen


def page_chunks(db: sqlite3.Connection, path: str) -> list[tuple[str, str, str]]:
    """(trail, heading, text) of each chunk of ``path``, in page order (a follow-up's packet chooses among them:
    ``answer.packet``)."""
    rows = db.execute("SELECT trail, heading, text FROM chunks WHERE path = ? ORDER BY ordinal", (path,))
    return [(str(trail), str(heading), str(text)) for trail, heading, text in rows]


def list_run(db: sqlite3.Connection, path: str, trail: str, text: str) -> str:
    """The numbered list the chunk ``text`` of ``path`` (under ``trail``) is an entry of: the run of the page's
    consecutive entry chunks under that trail, joined in page order, when the run opens with a numbered item;
    else ``text`` itself. A list of 8+ short items is cut one entry a unit (``vault.entries``), so the search
    finds a step alone: "8. Aktiviere unter **App** die Option **Insider-Builds erhalten**." says nothing
    without steps 1-7 (seen in the browser, stop 51). Bulleted lists, table rows and a conversation's turns
    stay one entry each: their items are read alone."""
    rows = [
        (str(t), str(x), str(k))
        for t, x, k in db.execute("SELECT trail, text, kind FROM chunks WHERE path = ? ORDER BY ordinal", (path,))
    ]
    at = next((i for i, row in enumerate(rows) if row == (trail, text, ENTRY_UNIT)), None)
    if at is None:
        return text
    start, end = at, at + 1
    while start > 0 and rows[start - 1][0] == trail and rows[start - 1][2] == ENTRY_UNIT:
        start -= 1
    while end < len(rows) and rows[end][0] == trail and rows[end][2] == ENTRY_UNIT:
        end += 1
    if not NUMBERED.match(rows[start][1]):
        return text
    return "\n".join(row[1] for row in rows[start:end])
