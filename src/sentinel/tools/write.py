"""write: create, replace or append to a page, through the gates."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from sentinel.gates import stale_write, transcripts, wiki_creation
from sentinel.maintain import trace
from sentinel.paths import PathRefused, jail
from sentinel.tools.context import Origin, ToolContext
from sentinel.tools.faults import refused, reindex
from sentinel.tools.policy import Status, ToolResult, retry, stop
from sentinel.vault.hashes import edit_hash
from sentinel.vault.write import (
    PageChanged,
    PageUndecodable,
    append_in_place,
    atomic_write,
    read_exact,
    read_regular,
)

DESCRIPTION = (
    "Write a vault page, only when the user asked for it. mode='create' makes a new page (fails if it exists); "
    "'append' adds to the end; 'replace' swaps the whole text and needs expected_hash from your last read of the "
    "page. Pages under conversations/ can never be written ([STOP]); new pages under wiki/ cannot be created "
    "from a chat ([STOP]); use notes/."
)

Mode = Literal["create", "replace", "append"]


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _stamped(current: str, data: bytes, origin: Origin) -> bytes:
    """What lands on disk: a write over a generated page says who edited it and stops claiming to be generated
    (``trace.stamp_edit``); any other write as it is."""
    text = data.decode("utf-8")
    when = datetime.now(UTC).isoformat(timespec="seconds")
    stamped = trace.stamp_edit(current, text, "chat" if origin is Origin.MODEL else "user", when)
    return data if stamped == text else stamped.encode("utf-8")


def write(ctx: ToolContext, path: str, content: str, mode: Mode = "create", expected_hash: str = "") -> ToolResult:
    settings = ctx.settings
    try:
        full, rel = jail(settings.vault, path, folders=settings.folders)
    except PathRefused as err:
        return retry(str(err))
    if not (verdict := transcripts.not_a_transcript(rel, settings, "write")).passed:
        return stop(verdict.reason)
    if mode not in ("create", "replace", "append"):
        return retry(f"mode must be 'create', 'replace' or 'append', not '{mode}'")
    if len(content.encode()) > settings.max_page_bytes:
        return retry(f"the content is over {settings.max_page_bytes} bytes; write it as several pages")
    with ctx.write_lock:
        try:
            done = _write_locked(ctx, full, rel, content, mode, expected_hash)
        except OSError as err:  # a full disk, a read-only mount, a page or folder this user may not touch
            return refused(err, settings.vault, "write", rel)
        if isinstance(done, ToolResult):
            return done
        notes = reindex(ctx, [rel])
    verb = {"create": "created", "replace": "replaced", "append": "appended to"}[mode]
    return ToolResult(Status.OK, f"{verb} {rel}; hash now {done}", notes)


APPEND_TRIES = 5  # an append whose page keeps changing under it gives up after this many re-reads


def _write_locked(
    ctx: ToolContext, full: Path, rel: str, content: str, mode: Mode, expected_hash: str
) -> ToolResult | str:
    """The write itself (``ctx.write_lock`` held): a refusal, or the page's new hash."""
    settings = ctx.settings
    exists = full.is_file()
    if ctx.origin is Origin.MODEL and not (verdict := wiki_creation.may_create(rel, exists, settings)).passed:
        return stop(verdict.reason)
    if mode == "create" and exists:
        return retry(
            f"'{rel}' already exists (hash {edit_hash(read_regular(full))}); use mode='append', or "
            "mode='replace' with that expected_hash"
        )
    if mode in ("replace", "append") and not exists:
        return retry(f"'{rel}' does not exist; use mode='create'")
    if mode == "create":
        atomic_write(full, _stamped("", _with_newline(content).encode(), ctx.origin))
        return edit_hash(read_regular(full))
    for _ in range(APPEND_TRIES if mode == "append" else 1):
        try:
            page = read_exact(full, rel)
        except PageUndecodable as err:
            return stop(str(err))
        current = page.bytes_of(page.text)
        if (mode == "replace" or expected_hash) and not (
            verdict := stale_write.read_current(expected_hash, edit_hash(current), rel)
        ).passed:
            return retry(verdict.reason)
        if mode == "append":
            added = ("" if not page.text or page.text.endswith("\n") else "\n") + _with_newline(content)
            whole = page.bytes_of(page.text, added)
            if _stamped(page.text, whole, ctx.origin) == whole:
                # in place, as an editor appends: text another writer appends meanwhile is never lost
                append_in_place(full, page.appended(added))
                return edit_hash(read_regular(full))
            data = _stamped(page.text, whole, ctx.origin)  # a generated page: its frontmatter changes too
        else:
            data = _stamped(page.text, page.bytes_of("", _with_newline(content)), ctx.origin)
        try:
            atomic_write(full, data, expect=current)
        except PageChanged:
            continue  # another editor wrote the page meanwhile: read it again, never rename over its text
        return edit_hash(data)
    return retry(f"'{rel}' kept changing while Sentinel wrote it (another editor is busy with it); try again")
