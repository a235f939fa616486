"""read: open one page at a bounded depth."""

from __future__ import annotations

from typing import Literal

from sentinel.index.resolve import page_for_link
from sentinel.paths import PathRefused, is_page_file, jail
from sentinel.search.scope import refused_by_key
from sentinel.tools.context import ToolContext
from sentinel.tools.pages import load, sections
from sentinel.tools.policy import Continuation, Status, ToolResult, more_line, retry, stop, window

DESCRIPTION = (
    "Open one vault page (its path, or its name as search shows it), cheapest depth first: depth='outline' "
    "(default) lists its sections with their sizes and the page hash; depth='section' with "
    "section=<heading or number> shows one section; depth='page' shows the whole text in pieces. [more] gives "
    "the cursor for the next piece. Use after search showed the page is relevant."
)

Depth = Literal["outline", "section", "page"]


def _paged(ctx: ToolContext, label: str, text: str, cursor: int, args: dict[str, str]) -> ToolResult:
    size = ctx.settings.read_page_chars
    page = window(len(text), cursor, size)
    end = page.end
    if page.cut:
        newline = text.rfind("\n", page.start + size * 2 // 3, page.end)
        end = newline + 1 if newline > 0 else page.end
    piece = text[page.start : end]
    if end < len(text):
        then = Continuation("read", {**args, "cursor": end})
        cut = more_line(window(len(text), page.start, end - page.start), "characters", then)
        return ToolResult(Status.MORE, f"{label} ({cut})\n{piece}", continuation=then)
    return ToolResult(Status.OK, f"{label}\n{piece}")


def read(ctx: ToolContext, path: str, depth: Depth = "outline", section: str = "", cursor: int = 0) -> ToolResult:
    if isinstance(path, str) and path.strip() and not is_page_file(path.strip()):
        path = page_for_link(ctx.reader(), path) or path  # a page name reaches its page as a link would
    try:
        full, rel = jail(ctx.settings.vault, path, must_exist=True)
    except PathRefused as err:
        return retry(str(err))
    if refused := refused_by_key(ctx.reader(), ctx.settings, rel):
        return stop(refused)
    text, digest = load(full)
    parts = sections(rel, text)
    if depth == "page":
        label = f"{rel} (hash {digest})"
        return _paged(ctx, label, text, cursor, {"path": rel, "depth": "page"})
    if depth == "section":
        wanted = section.strip().lstrip("#").strip()
        match = next((s for s in parts if wanted.isdigit() and s.number == int(wanted)), None) or next(
            (s for s in parts if s.heading.casefold() == wanted.casefold()), None
        )
        if match is None:
            names = "; ".join(f"{s.number}. {s.heading}" for s in parts) or "none (the page has no headings)"
            return retry(f"'{rel}' has no section '{section}'. Sections: {names}")
        body = "\n".join(text.splitlines()[match.start : match.end])
        args = {"path": rel, "depth": "section", "section": str(match.number)}
        return _paged(ctx, f"{rel} § {match.heading} (hash {digest})", body, cursor, args)
    if depth != "outline":
        return retry(f"depth must be 'outline', 'section' or 'page', not '{depth}'")
    words = len(text.split())
    if not parts:
        return ToolResult(
            Status.NEXT,
            f'{rel}: {words} words, no headings; hash {digest}\nnext: read(path="{rel}", depth="page")',
        )
    lines = [f"{rel}: {len(parts)} sections, {words} words; hash {digest}"]
    lines += [f"{'  ' * (s.level - 1)}{s.number}. {s.heading} ({s.words} words)" for s in parts]
    lines.append(f'next: read(path="{rel}", depth="section", section=<number>) or depth="page"')
    return ToolResult(Status.NEXT, "\n".join(lines))
