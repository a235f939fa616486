"""relocate: move or rename a page and rewrite the links that pointed at it, as Obsidian does."""

from __future__ import annotations

import errno

from sentinel.gates import transcripts, wiki_creation
from sentinel.index.resolve import resolve_keys
from sentinel.paths import PathRefused, Role, jail, page_name, role_of, without_md
from sentinel.tools.context import Origin, ToolContext
from sentinel.tools.faults import refused, reindex
from sentinel.tools.policy import Status, ToolResult, retry, stop
from sentinel.vault.links import link_key
from sentinel.vault.rewrite import retarget_links
from sentinel.vault.write import PageChanged, PageUndecodable, WriteFailed, atomic_write, read_exact

DESCRIPTION = (
    "Move or rename a vault page, only when the user asked for it; every link to it is rewritten to the new "
    "name. Transcripts under conversations/ cannot be moved ([STOP])."
)


def relocate(ctx: ToolContext, source: str, destination: str) -> ToolResult:
    settings = ctx.settings
    try:
        old_full, old = jail(settings.vault, source, must_exist=True, folders=settings.folders)
        new_full, new = jail(settings.vault, destination, folders=settings.folders)
    except PathRefused as err:
        return retry(str(err))
    for rel in (old, new):
        if not (verdict := transcripts.not_a_transcript(rel, settings, "move")).passed:
            return stop(verdict.reason)
    if old == new:
        return ToolResult(Status.DONE, f"'{old}' is already there; nothing to move")
    with ctx.write_lock:
        if new_full.exists() and old_full.resolve() != new_full.resolve():
            return retry(f"'{new}' already exists; choose another destination or remove it first")
        if ctx.origin is Origin.MODEL and not (verdict := wiki_creation.may_relocate(old, new, settings)).passed:
            return stop(verdict.reason)
        db = ctx.writer()
        rows = db.execute(
            "SELECT DISTINCT source, target_key FROM links WHERE resolved = ? AND source != ?", (old, old)
        ).fetchall()
        by_source: dict[str, set[str]] = {}
        for row in rows:
            if role_of(row["source"], settings) is not Role.CONVERSATION:  # transcripts stay verbatim, even links
                by_source.setdefault(row["source"], set()).add(row["target_key"])
        # every page whose links will be rewritten is read exactly first: one that cannot be stops the move
        try:
            linking = {rel: read_exact(settings.vault / rel, rel) for rel in sorted(by_source)}
        except PageUndecodable as err:
            return stop(f"not moved: {err} It links to '{old}', and its links would have to be rewritten.")
        except OSError as err:
            return refused(err, settings.vault, f"move '{old}' without reading")  # a page whose links point at it
        try:
            new_full.parent.mkdir(parents=True, exist_ok=True)
            old_full.rename(new_full)
        except OSError as err:
            if err.errno not in (errno.ENOTDIR, errno.EEXIST):
                return refused(err, settings.vault, f"move '{old}' to", new)  # permissions, read-only, ...
            return retry(
                f"cannot move '{old}' to '{new}' ({err.strerror}): every folder on the way must be a folder, "
                "not a page; choose another destination"
            )
        notes = reindex(ctx, [old, new])
        # the plain name if it now reaches the moved page unambiguously, else the full path
        name = page_name(new)
        target = name if resolve_keys(db, [link_key(name)])[link_key(name)] == new else without_md(new)
        rewritten, count, failed = [], 0, ""
        for rel, page in linking.items():
            text, changed = retarget_links(page.text, by_source[rel], target, new)
            if changed:
                try:
                    atomic_write(settings.vault / rel, page.bytes_of(text), expect=page.bytes_of(page.text))
                except (WriteFailed, PageChanged) as err:
                    why = err.strerror if isinstance(err, WriteFailed) else "another editor changed it meanwhile"
                    failed = (
                        f"; could not rewrite the links in '{rel}' ({why}): it and the pages after it "
                        "still link to the old name"
                    )
                    break
                rewritten.append(rel)
                count += changed
        notes += reindex(ctx, rewritten) if rewritten else []
    if failed:
        return ToolResult(
            Status.RETRY, f"moved {old} to {new}; rewrote {count} links in {len(rewritten)} pages{failed}", notes
        )
    tail = f"; rewrote {count} links in {len(rewritten)} pages" if count else ""
    return ToolResult(Status.OK, f"moved {old} to {new}{tail}", notes)
