"""Source records: one markdown file per research question, in the vault's sources folder.

The file is the question as asked, then one section per time it was asked: when, which backend and query, the
passages taken (each verbatim, under the page it came from with the URL, title, fetch time and the SHA-256 of
the bytes fetched), then the pages fetched that could not be used, each with its reason. Asking again appends a
new section (passages already recorded for the same URL are not repeated); nothing already there is changed or
deleted. The frontmatter carries what the index and a reader need: ``type: source-record``, the question, every
URL a passage came from, and one line per time it was asked.

Like any page in the sources folder the record is indexed at the body rung only and places no links
(``sentinel.paths.SUMMARY_RUNG_ROLES`` and ``LINK_PLACING_ROLES`` leave the source role out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter

from sentinel.errors import Refused
from sentinel.vault.parse import split_frontmatter
from sentinel.vault.write import atomic_write, read_exact

RECORD_TYPE = "source-record"
_PAGE_HEADING = re.compile(r"^#### (?P<title>.*)\nURL: <(?P<url>[^>\n]*)>", re.MULTILINE)
_QUOTE_BLOCK = re.compile(r"(?:^>(?: .*)?(?:\n|\Z))+", re.MULTILINE)


class RecordRefused(Refused, ValueError):
    """The record cannot be written where it would go; the message says why and what to do."""


@dataclass(frozen=True)
class Passage:
    """One passage, verbatim as its page's fetched text has it, with where and when it was fetched."""

    text: str
    url: str
    title: str
    fetched_at: str  # ISO 8601, UTC
    content_hash: str  # sha256 hex of the bytes fetched


@dataclass(frozen=True)
class Unusable:
    """A page that was fetched (or tried) and could not be used, and why."""

    url: str
    reason: str


@dataclass
class Run:
    """One time the question was asked."""

    question: str
    asked_at: str  # ISO 8601, UTC
    backend: str
    query: str
    passages: list[Passage] = field(default_factory=list)
    unusable: list[Unusable] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # code's words only (counts, what a gate dropped)


@dataclass(frozen=True)
class Written:
    relpath: str
    created: bool
    added: int  # passages appended by this run
    repeated: int  # passages this run found that the record already held
    added_pages: int = 0  # pages the appended passages come from (the run's section says the same number)


def recorded_passages(body: str) -> list[tuple[str, str]]:
    """``(url, passage)`` for every passage a record's body holds, in order."""
    found: list[tuple[str, str]] = []
    heads = list(_PAGE_HEADING.finditer(body))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        section = body[head.end() : end].split("\n### ", 1)[0].split("\n## ", 1)[0]
        for block in _QUOTE_BLOCK.finditer(section):
            text = "\n".join(line[2:] for line in block.group(0).rstrip("\n").split("\n"))
            found.append((head.group("url"), text))
    return found


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def render_run(run: Run, passages: list[Passage]) -> str:
    """The section one run adds: its header, the passages grouped under their page, the pages not used."""
    pages = len({p.url for p in passages})
    lines = [
        f"## Asked {run.asked_at}",
        "",
        f"Backend: {run.backend}. Query: “{run.query}”. {len(passages)} new passages from {pages} pages; "
        f"{len(run.unusable)} pages not used.",
        "",
        *run.notes,
        *([""] if run.notes else []),
        "### Passages",
        "",
    ]
    if not passages:
        lines += ["None new.", ""]
    current = ""
    for passage in passages:
        if passage.url != current:
            current = passage.url
            title = " ".join(passage.title.split()) or passage.url
            lines += [
                f"#### {title}",
                f"URL: <{passage.url}>",
                f"Fetched: {passage.fetched_at} · sha256: {passage.content_hash}",
                "",
            ]
        lines += [_quote(passage.text), ""]
    lines += ["### Not used", ""]
    lines += [f"- <{page.url}>: {page.reason}" for page in run.unusable] or ["None."]
    return "\n".join(lines).rstrip() + "\n"


def _existing(path: Path, relpath: str) -> tuple[dict[str, Any], str]:
    if not path.exists():
        return {}, ""
    meta, body, _, problem = split_frontmatter(read_exact(path, relpath).text)
    if problem or meta.get("type") != RECORD_TYPE:
        raise RecordRefused(
            f"'{relpath}' exists and is not a source record (its frontmatter has no 'type: {RECORD_TYPE}'): it is "
            "material someone put there, which research never overwrites. Ask the question in other words, or "
            "move that page"
        )
    return meta, body


def _listed(value: Any) -> list[Any]:
    """A frontmatter list as written, or a one-item list for a single value a person put there by hand."""
    return value if isinstance(value, list) else [] if value is None else [value]


def write_record(vault: Path, relpath: str, run: Run) -> Written:
    """Append ``run`` to the record at ``relpath`` (created on the first run); earlier runs stay as they are."""
    path = vault / relpath
    meta, body = _existing(path, relpath)
    held = {(url, " ".join(text.split())) for url, text in recorded_passages(body)}
    new = [p for p in run.passages if (p.url, " ".join(p.text.split())) not in held]
    urls = list(dict.fromkeys([*_listed(meta.get("urls")), *(p.url for p in new)]))
    asked = [
        *_listed(meta.get("asked")),
        {"at": run.asked_at, "backend": run.backend, "query": run.query, "passages": len(new)},
    ]
    meta = {**meta, "type": RECORD_TYPE, "question": meta.get("question", run.question), "urls": urls, "asked": asked}
    head = body.rstrip() + "\n\n" if body.strip() else f"# {' '.join(run.question.split())}\n\n"
    post = frontmatter.Post(head + render_run(run, new), **meta)
    atomic_write(path, frontmatter.dumps(post, sort_keys=False) + "\n")
    pages = len({p.url for p in new})
    return Written(relpath, created=not body, added=len(new), repeated=len(run.passages) - len(new), added_pages=pages)
