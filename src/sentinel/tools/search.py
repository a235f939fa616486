"""search: the ladder, cheapest rung first; one line per hit, never a score."""

from __future__ import annotations

from typing import Literal

from sentinel.search.ladder import SearchInputError
from sentinel.search.ladder import search as ladder
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import Continuation, Status, ToolResult, retry

DESCRIPTION = (
    "Search the vault (always before answering from memory). rung='summary' (default) gives one line per page "
    "saying what it is: usually enough. rung='body' gives verbatim passages: use it only when a summary showed a "
    "page is relevant but lacks the answer. Hits are in rank order. On [DONE] stop searching and answer."
)

Rung = Literal["summary", "body"]


def search(ctx: ToolContext, query: str, rung: Rung = "summary", cursor: int = 0) -> ToolResult:
    try:
        found = ladder(ctx.reader(), ctx.settings, ctx.embedder, query, rung=rung, cursor=cursor)
    except SearchInputError as err:
        return retry(str(err))
    notes = list(found.notes)
    if not found.hits:
        where = "page summaries" if rung == "summary" else "page text"
        tip = "; try rung='body'" if rung == "summary" else ""
        return ToolResult(Status.DONE, f"nothing in the {where} matches '{found.query}'{tip}", notes)
    lines = []
    for hit in found.hits:
        labels = "".join(f"[{label}] " for label in hit.labels)
        # the page's date goes with every line, so "when did ..." can be answered from the passage
        dated = f" ({hit.date})" if hit.date else ""
        also = f" (also in: {', '.join(hit.also_in)})" if hit.also_in else ""
        if rung == "summary":
            lines.append(f"{labels}{hit.name}{dated}{also}: {hit.text}")
        else:
            lines.append(f"{labels}{hit.path}{dated} › {hit.trail}{also}\n{hit.text}")
    sep = "\n" if rung == "summary" else "\n---\n"
    pages = [hit.path for hit in found.hits]
    if found.next_cursor is not None:
        then = Continuation("search", {"query": found.query, "rung": rung, "cursor": found.next_cursor})
        # the text does not repeat the query: a pasted paragraph would cost its tokens again on every page of hits
        same = "" if rung == "summary" else f', rung="{rung}"'
        more = f"search(query=<same>{same}, cursor={found.next_cursor})"
        return ToolResult(Status.MORE, f"{more}\n" + sep.join(lines), notes, then, pages)
    return ToolResult(Status.OK, sep.join(lines), notes, pages=pages)
