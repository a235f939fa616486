"""Provenance that checks itself: where each quote of a generated page came from, and whether it still holds.

A concept page records, per quoted sentence, the source path and a locator: the heading trail above the
sentence, its character span in the source's visible text (body without frontmatter, links as their words)
and the SHA-256 of the source file as it was when the page was written; plus the hash of the page body as
written. ``trace_page`` walks each quote the page shows now back to its source and re-verifies it against the
source as it is now, saying plainly which link of the chain broke: a quote the record does not hold (the page
was edited after generation, and by whom: see below), a quote no longer in its source, a source that changed
(the quote still there or not) or vanished. A quote from a note goes one step further, to the transcript the
note's record line points at.

Who edited: a write through Sentinel's tools over a generated page goes through ``stamp_edit``, which takes off
what the page no longer earns (``generated_by``, ``sources``), keeps the pass's record (``quotes``,
``body_sha256``) as the pass wrote it, whatever the writer's text says, and adds ``edited_by`` / ``edited_at``.
So a chat that rewrites a quote leaves a page that says it was edited by a chat, and a body that differs from
the record with no stamp was edited outside Sentinel (by hand).
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sentinel.index.migrations import transaction
from sentinel.paths import Role, role_of, transcript_path, with_md, without_md
from sentinel.settings import Settings
from sentinel.vault.hashes import body_hash, source_hash
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.parse import split_frontmatter
from sentinel.vault.record_line import record_target
from sentinel.vault.write import read_text

GENERATED_BY = "sentinel maintain"
CLAIMS = ("generated_by", "sources")  # what a page says only while its body is what the pass wrote
RECORD = ("quotes", "body_sha256")  # what the pass wrote, kept through edits so the trace can still walk it
_QUOTE = re.compile(r"^> (?!— )(.*)\n> — \[\[([^|\]]+)", re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)


def _traceable(meta: dict[str, Any]) -> bool:
    """A page the pass generated: still claiming it, or edited through a tool with the pass's record kept."""
    return meta.get("generated_by") == GENERATED_BY or bool(meta.get("edited_by") and meta.get("quotes"))


def stamp_edit(current: str, new: str, editor: str, when: str) -> str:
    """The text a tool writes as ``new`` over a page whose text is ``current`` ("" for a new page).

    Over a generated page: ``new`` without the claims of a generated page, with the pass's record taken from
    ``current`` (never from ``new``: a writer cannot forge it) and ``edited_by: editor``, ``edited_at: when``.
    Over any other page: ``new`` as it is, less the claims and record of a generated page if it makes them
    (only the pass writes those).
    """
    before, (after, body, _, problem) = split_frontmatter(current)[0], split_frontmatter(new)
    if not _traceable(before) and not _traceable(after):
        return new
    if problem:  # broken YAML in the new text: its keys cannot be trusted or kept
        after = {}
    meta = {key: value for key, value in after.items() if key not in (*CLAIMS, *RECORD, "edited_by", "edited_at")}
    if _traceable(before):
        meta |= {key: before[key] for key in RECORD if key in before} | {"edited_by": editor, "edited_at": when}
    if not meta:
        return body
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n" + body


def _visible(text: str) -> str:
    return text_without_link_markup(split_frontmatter(text)[1])


def _find(sentence: str, visible: str) -> tuple[int, int] | None:
    pattern = r"\s+".join(re.escape(word) for word in sentence.split())
    match = re.search(pattern, visible) if pattern else None
    return match.span() if match else None


def _heading_trail(visible: str, position: int) -> str:
    trail: list[tuple[int, str]] = []
    for match in _HEADING.finditer(visible, 0, position):
        level = len(match.group(1))
        trail = [h for h in trail if h[0] < level] + [(level, match.group(2))]
    return " > ".join(title for _, title in trail)


def locate(vault: Path, source: str, sentence: str) -> dict[str, Any]:
    """The locator of ``sentence`` in ``source`` as the file is now (written into the page's frontmatter)."""
    text = read_text(vault / source)
    visible = _visible(text)
    span = _find(sentence, visible)
    return {
        "sentence": sentence,
        "source": source,
        "heading": _heading_trail(visible, span[0]) if span else "",
        "span": list(span) if span else None,
        "source_sha256": source_hash(text),
    }


@dataclass
class QuoteCheck:
    sentence: str
    source: str
    state: str  # "intact", or what broke, in words
    heading: str = ""
    transcript: str = ""  # for a quote from a note: the record line and the transcript it points at

    @property
    def intact(self) -> bool:
        return self.state == "intact"


@dataclass
class PageTrace:
    path: str
    generated: bool
    edited: bool = False  # the body differs from what the pass wrote, or a tool stamped an edit
    edited_by: str = ""  # who, when a Sentinel tool wrote it ("chat", "user"); "" with edited: outside Sentinel
    edited_at: str = ""
    quotes: list[QuoteCheck] = field(default_factory=list)

    @property
    def broken(self) -> bool:
        return self.edited or any(not q.intact for q in self.quotes)


def _transcript_step(settings: Settings, source: str, text: str) -> str:
    """For a note: its record line (line number and text) and whether the transcript it names is there."""
    if role_of(source, settings) is not Role.NOTE:
        return ""
    for number, line in enumerate(text.splitlines(), 1):
        if (name := record_target(settings.record_label, line)) is not None:
            transcript = transcript_path(name, settings)
            there = "there" if (settings.vault / transcript).is_file() else "GONE"
            return f"{source} line {number} '{line.strip()}' -> {transcript}: {there}"
    return f"{source} has no record line: no transcript recorded"


def _check(settings: Settings, sentence: str, source: str, record: dict[str, Any] | None) -> QuoteCheck:
    heading = record.get("heading", "") if record else ""
    if record is None:
        return QuoteCheck(sentence, source, "not in the provenance record: the quote was written after generation")
    vault = settings.vault
    path = vault / with_md(source)
    if not path.is_file():
        return QuoteCheck(sentence, source, "the source is gone", heading)
    text = read_text(path)
    now_span = _find(sentence, _visible(text))
    changed = source_hash(text) != record.get("source_sha256")
    if now_span is None:
        why = "the source changed and no longer says it" if changed else "the quote is not in the source"
        return QuoteCheck(sentence, source, why, heading)
    step = _transcript_step(settings, source, text)
    if changed:
        state = f"the source changed; the quote is still in it (at {now_span[0]})"
        return QuoteCheck(sentence, source, state, heading, step)
    return QuoteCheck(sentence, source, "intact", heading, step)


def trace_page(settings: Settings, relpath: str) -> PageTrace:
    """Walk every quote the page shows now to its source (and a note's to its transcript) and re-verify it."""
    vault = settings.vault
    meta, body, _, _ = split_frontmatter(read_text(vault / relpath))
    result = PageTrace(relpath, _traceable(meta), edited_by=str(meta.get("edited_by") or ""))
    if not result.generated:
        return result
    result.edited_at = str(meta.get("edited_at") or "")
    result.edited = bool(result.edited_by) or meta.get("body_sha256") != body_hash(body)
    records = {
        (str(r.get("sentence")), str(r.get("source"))): r for r in meta.get("quotes") or [] if isinstance(r, dict)
    }
    shown = [(m.group(1), m.group(2)) for m in _QUOTE.finditer(body)]
    for sentence, link in shown:
        source = with_md(link)
        result.quotes.append(_check(settings, sentence, source, records.get((sentence, source))))
    for sentence, source in records:
        if (sentence, without_md(source)) not in shown and (sentence, source) not in shown:
            result.quotes.append(QuoteCheck(sentence, source, "removed from the page after generation"))
    return result


def generated_pages(settings: Settings) -> list[str]:
    """Vault paths of the pages the pass generated (their frontmatter says so, or keeps its record)."""
    vault, wiki = settings.vault, settings.vault / settings.folders.wiki
    found = []
    for path in sorted(wiki.rglob("*.md")) if wiki.is_dir() else []:
        if _traceable(split_frontmatter(read_text(path))[0]):
            found.append(path.relative_to(vault).as_posix())
    return found


def find_sentence(settings: Settings, sentence: str) -> list[str]:
    """Generated pages that quote ``sentence`` (or a part of it), for ``sentinel trace "<sentence>"``."""
    needle = " ".join(sentence.split()).casefold()
    pages = generated_pages(settings)
    return [p for p in pages if needle in " ".join(read_text(settings.vault / p).split()).casefold()]


def broken_pages(settings: Settings) -> list[PageTrace]:
    """Every generated page whose chain no longer holds (the nightly pass lists them in the health line)."""
    return [t for t in (trace_page(settings, p) for p in generated_pages(settings)) if t.broken]


def lines(trace: PageTrace) -> list[str]:
    """The trace as a person reads it."""
    if not trace.generated:
        return [f"{trace.path}: not a generated page (no generated_by: {GENERATED_BY}); nothing to trace"]
    head = f"{trace.path}: " + ("BROKEN" if trace.broken else "intact")
    out = [head]
    if trace.edited_by:
        at = f" at {trace.edited_at}" if trace.edited_at else ""
        out.append(f"  the page was edited after generation by a {trace.edited_by} write{at} (generated_by taken off)")
    elif trace.edited:
        out.append("  the page was edited after generation outside Sentinel's tools (a hand edit)")
    for quote in trace.quotes:
        where = f" under '{quote.heading}'" if quote.heading else ""
        out.append(f'  "{quote.sentence}"')
        out.append(f"    <- {quote.source}{where}: {quote.state}")
        if quote.transcript:
            out.append(f"    <- recorded from a conversation: {quote.transcript}")
    return out


BROKEN_KEY = "broken_generated_pages"


def record_broken(db: sqlite3.Connection, settings: Settings) -> list[str]:
    """Re-verify every generated page and remember the broken ones for the health line (never rewrites one)."""
    broken = [t.path for t in broken_pages(settings)]
    with transaction(db):
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (BROKEN_KEY, json.dumps(broken, ensure_ascii=False)),
        )
    return broken


def remembered_broken(db: sqlite3.Connection) -> list[str]:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (BROKEN_KEY,)).fetchone()
    return list(json.loads(row[0])) if row else []
