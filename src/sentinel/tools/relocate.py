"""relocate: move or rename a page and rewrite the links that pointed at it, as Obsidian does."""

from __future__ import annotations

from sentinel.gates.transcripts import transcript_refusal
from sentinel.gates.wiki_creation import wiki_creation_refusal
from sentinel.index.resolve import resolve_keys
from sentinel.index.sync import sync_paths
from sentinel.paths import PathRefused, Role, jail, page_name, role_of
from sentinel.tools.context import Origin, ToolContext
from sentinel.tools.policy import Status, ToolResult, retry, stop
from sentinel.vault.links import link_key
from sentinel.vault.rewrite import retarget_links
from sentinel.vault.write import atomic_write, read_text

DESCRIPTION = (
    "Move or rename a vault page, only when the user asked for it; every link to it is rewritten to the new "
    "name. Transcripts under conversations/ cannot be moved ([STOP])."
)


def relocate(ctx: ToolContext, source: str, destination: str) -> ToolResult:
    settings = ctx.settings
    try:
        old_full, old = jail(settings.vault, source, must_exist=True)
        new_full, new = jail(settings.vault, destination)
    except PathRefused as err:
        return retry(str(err))
    for rel in (old, new):
        if refusal := transcript_refusal(rel, settings, "move"):
            return stop(refusal)
    if old == new:
        return ToolResult(Status.DONE, f"'{old}' is already there; nothing to move")
    with ctx.write_lock:
        if new_full.exists() and old_full.resolve() != new_full.resolve():
            return retry(f"'{new}' already exists; choose another destination or remove it first")
        moving_in = ctx.origin is Origin.MODEL and role_of(old, settings) is not Role.WIKI
        if moving_in and (refusal := wiki_creation_refusal(new, False, settings)):
            return stop(refusal)
        db = ctx.writer()
        rows = db.execute(
            "SELECT DISTINCT source, target_key FROM links WHERE resolved = ? AND source != ?", (old, old)
        ).fetchall()
        new_full.parent.mkdir(parents=True, exist_ok=True)
        old_full.rename(new_full)
        sync_paths(settings, db, [old, new])
        # the plain name if it now reaches the moved page unambiguously, else the full path
        name = page_name(new)
        target = name if resolve_keys(db, [link_key(name)])[link_key(name)] == new else new[:-3]
        by_source: dict[str, set[str]] = {}
        for row in rows:
            by_source.setdefault(row["source"], set()).add(row["target_key"])
        rewritten, count = [], 0
        for rel, keys in sorted(by_source.items()):
            if role_of(rel, settings) is Role.CONVERSATION:
                continue  # transcripts stay verbatim, even their links
            full = settings.vault / rel
            text, changed = retarget_links(read_text(full), keys, target, new)
            if changed:
                atomic_write(full, text)
                rewritten.append(rel)
                count += changed
        sync_paths(settings, db, rewritten)
    tail = f"; rewrote {count} links in {len(rewritten)} pages" if count else ""
    return ToolResult(Status.OK, f"moved {old} to {new}{tail}")
