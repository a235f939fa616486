"""listing: deterministic enumeration of pages (or of the names no page answers to), sorted and paged."""

from __future__ import annotations

import json

from sentinel.index.facets import FacetError, parse_facets
from sentinel.index.queries import unresolved
from sentinel.search.scope import kept_out, scope_folders
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import Continuation, Status, ToolResult, more_line, retry, window

DESCRIPTION = (
    "List vault pages, sorted and paged: folder='notes' (or any folder; empty = whole vault); filter takes "
    "frontmatter facets like 'type:concept status:seedling tag:x role:source', plus 'sort:recent' (newest first) "
    "or the word 'unresolved' (names links reach for that have no page yet: do not read those, no page exists)."
)


def shown_path(path: str) -> str:
    """A path on one line: a name holding a line break or another control character is shown JSON-quoted (as a
    call takes it back), so one page is never read as two."""
    return json.dumps(path, ensure_ascii=False) if any(ord(c) < 32 or c == "\x7f" for c in path) else path


def listing(ctx: ToolContext, folder: str = "", filter: str = "", cursor: int = 0) -> ToolResult:
    size = ctx.settings.list_page_size
    db = ctx.reader()
    try:
        facets = parse_facets(filter)
    except FacetError as err:
        return retry(str(err))
    facets.scope_folders = scope_folders(ctx.settings)
    words = [w.casefold() for w in facets.words]
    recent = ("sort", "recent") in [(k, v.casefold()) for k, v in facets.fields]
    facets.fields = [(k, v) for k, v in facets.fields if k != "sort"]
    if "unresolved" in words:
        names = unresolved(db, limit=size + 1, offset=cursor)
        total = cursor + len(names)
        lines = [f"{r.name} — {r.pages} pages reach for it (no page yet)" for r in names[:size]]
        page = window(total, cursor, size)
        head = "names with no page, most wanted first"
        if len(names) > size:
            then = Continuation("listing", {"filter": "unresolved", "cursor": cursor + size})
            more = f"more names follow; continue with {then.call()}"
            return ToolResult(Status.MORE, f"{head} ({more})\n" + "\n".join(lines), continuation=then)
        if not lines:
            return ToolResult(Status.DONE, "no unresolved names: every link reaches a page")
        return ToolResult(Status.OK, f"{head} ({page.start + 1}-{page.end})\n" + "\n".join(lines))
    where, params = facets.sql()
    folder = folder.strip().strip("/")
    if folder:
        where += " AND (path LIKE ? ESCAPE '\\')"
        params.append(folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%")
    for word in words:
        where += " AND instr(lower(title), ?) > 0"
        params.append(word)
    if out := sorted(kept_out(db, ctx.settings, facets)):  # the scope boundary (sentinel.search.scope)
        where += f" AND path NOT IN ({','.join('?' * len(out))})"
        params += out
    order = "mtime_ns DESC, path" if recent else "path"
    total = db.execute(f"SELECT COUNT(*) FROM pages WHERE {where}", params).fetchone()[0]
    page = window(total, cursor, size)
    rows = db.execute(
        f"SELECT path, role FROM pages WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?", [*params, size, page.start]
    ).fetchall()
    scope = f"in {folder}/" if folder else "in the vault"
    what = f" matching '{filter.strip()}'" if filter.strip() else ""
    if not total:
        return ToolResult(Status.DONE, f"no pages {scope}{what}")
    lines = [shown_path(r["path"]) for r in rows]
    if page.cut:
        then = Continuation("listing", {"folder": folder, "filter": filter, "cursor": page.end})
        return ToolResult(
            Status.MORE,
            f"{total} pages {scope}{what} ({more_line(page, 'pages', then)})\n" + "\n".join(lines),
            continuation=then,
        )
    return ToolResult(Status.OK, f"{total} pages {scope}{what}\n" + "\n".join(lines))
