"""capture: keep a conversation on request: the transcript verbatim, the note under notes/, a record line.

This is the only path that writes transcripts. The model decides nothing here: it calls save when the user
asks, and code decides where the transcript lives, which page the note lands in and whether a record line is
added.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import yaml

from sentinel.gates import transcripts
from sentinel.paths import PathRefused, jail, note_path, page_name, transcript_path
from sentinel.tools.arguments import unencodable_argument
from sentinel.tools.context import ToolContext
from sentinel.tools.faults import reindex
from sentinel.tools.policy import Status, ToolResult, retry, stop
from sentinel.vault.record_line import record_label, record_line
from sentinel.vault.write import PageUndecodable, WriteFailed, atomic_write, read_exact

DESCRIPTION = (
    "Save this conversation, ONLY when the user asks ('save this', 'note this', 'kaydet'); never offer or "
    "decide on your own. subject names the note (notes/<subject>.md); content is what to keep, in the user's "
    "words where possible. The whole conversation is recorded verbatim and linked from the note."
)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    said = [_text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    return next((text for text in reversed(said) if text.strip()), "")


def render_transcript(chat_id: str, name: str, messages: list[dict[str, Any]], created: str, now: str) -> str:
    meta = {"type": "transcript", "chat_id": chat_id, "created": created, "updated": now}
    parts = ["---", yaml.safe_dump(meta, allow_unicode=True, sort_keys=False).strip(), "---", f"# {name}", ""]
    for message in messages:
        parts += [f"## {message.get('role', 'unknown')}", "", _text_of(message.get("content")).strip(), ""]
    return "\n".join(parts)


def _transcript_for(ctx: ToolContext, chat_id: str) -> tuple[str | None, str]:
    row = (
        ctx.writer()
        .execute(
            "SELECT path, json_extract(frontmatter, '$.created') FROM pages WHERE role = 'conversation' "
            "AND json_extract(frontmatter, '$.chat_id') = ? ORDER BY path LIMIT 1",
            (chat_id,),
        )
        .fetchone()
    )
    return (row[0], row[1] or "") if row else (None, "")


def _new_transcript_path(ctx: ToolContext, today: str) -> str:
    n = 1
    while (ctx.settings.vault / transcript_path(f"{today}-{n}", ctx.settings)).exists():
        n += 1
    return transcript_path(f"{today}-{n}", ctx.settings)


def capture(
    ctx: ToolContext,
    chat_id: str,
    messages: list[dict[str, Any]],
    subject: str,
    content: str,
) -> ToolResult:
    """The note's record line is labelled in the language of the person's last turn in ``messages`` (the save
    request), decided here for every caller (``vault.record_line.record_label``): the pipeline's save, the model's
    own call through the tool API and ``/save`` alike (seen: a model's call labelled a Turkish note "Record:")."""
    if not chat_id.strip():
        return retry("chat_id is empty: the conversation cannot be found again without it")
    if not messages:
        return retry("messages is empty: there is no conversation to record")
    if not subject.strip():
        return retry("subject is empty: name what the note is about, e.g. subject='Growth queue'")
    if problem := unencodable_argument(
        {"chat_id": chat_id, "messages": messages, "subject": subject, "content": content}
    ):
        return retry(problem)
    settings = ctx.settings
    now = datetime.now(UTC)
    stamp = now.isoformat(timespec="seconds")
    try:
        note_full, note_rel = jail(settings.vault, note_path(subject, settings), folders=settings.folders)
    except PathRefused as err:
        return retry(f"subject: {err}")
    if not (verdict := transcripts.not_a_transcript(note_rel, settings, "note write")).passed:
        return stop(verdict.reason)
    with ctx.write_lock:
        transcript_rel, created = _transcript_for(ctx, chat_id)
        transcript_rel = transcript_rel or _new_transcript_path(ctx, now.date().isoformat())
        name = page_name(transcript_rel)
        transcript = render_transcript(chat_id, name, messages, created or stamp, stamp).encode()
        if len(transcript) > settings.max_page_bytes:
            # an over-limit page is not indexed, so its chat id would never be found: every save would start
            # another transcript and add another record line
            return stop(
                f"this conversation is {len(transcript)} bytes as a transcript, over max_page_bytes "
                f"({settings.max_page_bytes}); nothing was saved. Start a new chat for what follows, or raise "
                "max_page_bytes."
            )
        record = record_line(record_label(settings, _last_user_text(messages)), name)
        body = content.strip()
        if note_full.is_file():
            try:
                page = read_exact(note_full, note_rel)
            except PageUndecodable as err:
                return stop(f"nothing was saved: {err}")
            kept = page.text.rstrip("\r\n")
            added = ("\n\n" + body if body else "") + ("" if f"[[{name}]]" in page.text else f"\n\n{record}")
            note = page.bytes_of(kept, added + "\n")
            verb = "appended to"
        else:
            note = ((f"{body}\n\n{record}" if body else record) + "\n").encode()
            verb = "created"
        try:
            atomic_write(settings.vault / transcript_rel, transcript)
            atomic_write(note_full, note)
        except WriteFailed as err:
            reindex(ctx, [transcript_rel, note_rel])  # the transcript may have landed
            return retry(f"could not save: {err.filename}: {err.strerror}. Free space, then ask again")
        notes = reindex(ctx, [transcript_rel, note_rel])  # a full index disk: saved all the same, said in a note
    return ToolResult(Status.OK, f"{verb} {note_rel}; conversation recorded verbatim in {transcript_rel}", notes)
