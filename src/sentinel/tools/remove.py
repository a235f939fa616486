"""remove: delete a page; links to it return to the growth queue."""

from __future__ import annotations

from sentinel.gates import transcripts
from sentinel.paths import PathRefused, jail
from sentinel.tools.context import ToolContext
from sentinel.tools.faults import refused, reindex
from sentinel.tools.policy import Status, ToolResult, retry, stop

DESCRIPTION = (
    "Delete a vault page, only when the user asked for it. Links to it stay and point nowhere until a page "
    "with that name exists again. Transcripts under conversations/ can never be removed ([STOP])."
)


def remove(ctx: ToolContext, path: str) -> ToolResult:
    try:
        full, rel = jail(ctx.settings.vault, path, must_exist=True, folders=ctx.settings.folders)
    except PathRefused as err:
        return retry(str(err))
    if not (verdict := transcripts.not_a_transcript(rel, ctx.settings, "removal")).passed:
        return stop(verdict.reason)
    with ctx.write_lock:
        db = ctx.writer()
        incoming = db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT source) FROM links WHERE resolved = ? AND source != ?", (rel, rel)
        ).fetchone()
        try:
            full.unlink()
        except OSError as err:  # a read-only folder or mount
            return refused(err, ctx.settings.vault, "remove", rel)
        notes = reindex(ctx, [rel])
    links, pages = incoming
    tail = f"; {links} links from {pages} pages now point nowhere and are back in the growth queue" if links else ""
    return ToolResult(Status.OK, f"removed {rel}{tail}", notes)
