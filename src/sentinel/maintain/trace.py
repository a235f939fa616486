"""Provenance that checks itself: where each quote of a generated page came from, and whether it still holds.

A concept page records, per quoted sentence, the source path and a locator: the heading trail above the
sentence, its character span in the source's visible text (body without frontmatter, links as their words)
and the SHA-256 of the source file as it was when the page was written; plus the hash of the page body as
written. ``trace_page`` walks each quote the page shows now back to its source and re-verifies it against the
source as it is now, saying plainly which link of the chain broke: a quote the record does not hold (the page
was edited after generation: by a chat write or by hand, which the vault alone cannot tell apart), a quote no
longer in its source, a source that changed (the quote still there or not) or vanished.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sentinel.index.migrations import transaction
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.parse import split_frontmatter
from sentinel.vault.write import read_text

GENERATED_BY = "sentinel maintain"
_QUOTE = re.compile(r"^> (?!— )(.*)\n> — \[\[([^|\]]+)", re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)


def body_hash(body: str) -> str:
    return hashlib.sha256(body.strip().encode()).hexdigest()


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
        "source_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }


@dataclass
class QuoteCheck:
    sentence: str
    source: str
    state: str  # "intact", or what broke, in words
    heading: str = ""

    @property
    def intact(self) -> bool:
        return self.state == "intact"


@dataclass
class PageTrace:
    path: str
    generated: bool
    edited: bool = False  # the body differs from what the pass wrote
    quotes: list[QuoteCheck] = field(default_factory=list)

    @property
    def broken(self) -> bool:
        return self.edited or any(not q.intact for q in self.quotes)


def _check(vault: Path, sentence: str, source: str, record: dict[str, Any] | None) -> QuoteCheck:
    heading = record.get("heading", "") if record else ""
    if record is None:
        return QuoteCheck(sentence, source, "not in the provenance record: the quote was written after generation")
    path = vault / f"{source}.md" if not source.endswith(".md") else vault / source
    if not path.is_file():
        return QuoteCheck(sentence, source, "the source is gone", heading)
    text = read_text(path)
    now_span = _find(sentence, _visible(text))
    changed = hashlib.sha256(text.encode()).hexdigest() != record.get("source_sha256")
    if now_span is None:
        why = "the source changed and no longer says it" if changed else "the quote is not in the source"
        return QuoteCheck(sentence, source, why, heading)
    if changed:
        return QuoteCheck(sentence, source, f"the source changed; the quote is still in it (at {now_span[0]})", heading)
    return QuoteCheck(sentence, source, "intact", heading)


def trace_page(vault: Path, relpath: str) -> PageTrace:
    """Walk every quote the page shows now to its source and re-verify it."""
    meta, body, _, _ = split_frontmatter(read_text(vault / relpath))
    result = PageTrace(relpath, meta.get("generated_by") == GENERATED_BY)
    if not result.generated:
        return result
    result.edited = meta.get("body_sha256") != body_hash(body)
    records = {
        (str(r.get("sentence")), str(r.get("source"))): r for r in meta.get("quotes") or [] if isinstance(r, dict)
    }
    shown = [(m.group(1), m.group(2)) for m in _QUOTE.finditer(body)]
    for sentence, link in shown:
        source = link if link.endswith(".md") else f"{link}.md"
        result.quotes.append(_check(vault, sentence, source, records.get((sentence, source))))
    for sentence, source in records:
        if (sentence, source.removesuffix(".md")) not in shown and (sentence, source) not in shown:
            result.quotes.append(QuoteCheck(sentence, source, "removed from the page after generation"))
    return result


def generated_pages(vault: Path, wiki_folder: str) -> list[str]:
    """Vault paths of the pages the pass generated (their frontmatter says so)."""
    found = []
    for path in sorted((vault / wiki_folder).rglob("*.md")) if (vault / wiki_folder).is_dir() else []:
        meta = split_frontmatter(read_text(path))[0]
        if meta.get("generated_by") == GENERATED_BY:
            found.append(path.relative_to(vault).as_posix())
    return found


def find_sentence(vault: Path, wiki_folder: str, sentence: str) -> list[str]:
    """Generated pages that quote ``sentence`` (or a part of it), for ``sentinel trace "<sentence>"``."""
    needle = " ".join(sentence.split()).casefold()
    pages = generated_pages(vault, wiki_folder)
    return [p for p in pages if needle in " ".join(read_text(vault / p).split()).casefold()]


def broken_pages(vault: Path, wiki_folder: str) -> list[PageTrace]:
    """Every generated page whose chain no longer holds (the nightly pass lists them in the health line)."""
    return [t for t in (trace_page(vault, p) for p in generated_pages(vault, wiki_folder)) if t.broken]


def lines(trace: PageTrace) -> list[str]:
    """The trace as a person reads it."""
    if not trace.generated:
        return [f"{trace.path}: not a generated page (no generated_by: {GENERATED_BY}); nothing to trace"]
    head = f"{trace.path}: " + ("BROKEN" if trace.broken else "intact")
    out = [head]
    if trace.edited:
        out.append("  the page was edited after generation (a chat write or a hand edit: the vault cannot tell which)")
    for quote in trace.quotes:
        where = f" under '{quote.heading}'" if quote.heading else ""
        out.append(f'  "{quote.sentence}"')
        out.append(f"    <- {quote.source}{where}: {quote.state}")
    return out


BROKEN_KEY = "broken_generated_pages"


def record_broken(db: sqlite3.Connection, vault: Path, wiki_folder: str) -> list[str]:
    """Re-verify every generated page and remember the broken ones for the health line (never rewrites one)."""
    broken = [t.path for t in broken_pages(vault, wiki_folder)]
    with transaction(db):
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (BROKEN_KEY, json.dumps(broken, ensure_ascii=False)),
        )
    return broken


def remembered_broken(db: sqlite3.Connection) -> list[str]:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (BROKEN_KEY,)).fetchone()
    return list(json.loads(row[0])) if row else []
