"""Parse one page: frontmatter, links, headings, tags and heading-aware chunks, plus its content hash.

Markdown is tokenised by pyromark (pulldown-cmark, CommonMark with tables) so that links inside code spans,
code blocks and raw HTML are not links. pulldown-cmark reports byte offsets, so positions here are bytes of
the UTF-8 body.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import frontmatter
import pyromark
import yaml

from sentinel.paths import page_name
from sentinel.vault.bounded_yaml import BoundedYAMLHandler, FrontmatterRefused
from sentinel.vault.entries import kinded_units, page_date
from sentinel.vault.hashes import content_hash
from sentinel.vault.links import Link, markdown_link, text_without_link_markup, wikilinks_in

_OPTIONS = pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_STRIKETHROUGH
FRONTMATTER_BLOCK = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)
WIKILINK_BYTES = re.compile(rb"!?\[\[[^\[\]\n]+?\]\]")
COMMENT = re.compile(rb"%%.*?%%", re.DOTALL)  # Obsidian comments: hidden in reading view, their links do not count
INLINE_TAG = re.compile(rb"(?<![\w/#&\[])#([^\s#.,;:!?()\[\]{}'\"`|<>=*]+)")
NOT_CODE = ("Code", "Html", "InlineHtml", "InlineMath", "DisplayMath")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    trail: str  # "Title > H1 > H2"
    heading: str  # the innermost heading, "" before the first one
    text: str
    words: int
    kind: str = "window"  # "entry": one entry of a run of short entries; "window": prose (sentinel.vault.entries)


@dataclass
class ParsedPage:
    title: str
    frontmatter: dict[str, Any]
    aliases: list[str]
    tags: list[str]
    description: str
    links: list[Link]
    headings: list[Heading]
    chunks: list[Chunk]
    content_hash: str
    problems: list[str] = field(default_factory=list)
    date: str = ""  # the page's own date (frontmatter, else its title), ISO; "" when it names none


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if isinstance(value, date | datetime):
        return value.isoformat()
    return value


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[,\n]", value) if v.strip()]
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, int, str | None]:
    """Frontmatter as a dict, the body, the body's first line number, and a problem if the YAML is broken."""
    block = FRONTMATTER_BLOCK.match(text)
    if not block:
        return {}, text, 0, None
    offset = text.count("\n", 0, block.end())
    body = text[block.end() :]
    try:
        post = frontmatter.loads(text, handler=BoundedYAMLHandler())
    except FrontmatterRefused as err:
        return {}, body, offset, f"frontmatter refused ({err}); indexed without it"
    except (yaml.YAMLError, ValueError, RecursionError) as err:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        return {}, body, offset, f"broken frontmatter (YAML error: {first}); indexed without it"
    if not isinstance(post.metadata, dict):
        return {}, body, offset, "frontmatter is not a mapping of keys to values; indexed without it"
    return _jsonable(post.metadata), body, offset, None


@dataclass
class _Scan:
    """What one pass over the markdown events finds."""

    code: list[tuple[int, int]] = field(default_factory=list)  # byte ranges that are not markdown text
    blocks: list[tuple[int, int]] = field(default_factory=list)  # code and HTML blocks: whole lines
    headings: list[tuple[int, str, int]] = field(default_factory=list)  # level, text, byte offset
    links: list[tuple[str, str, int]] = field(default_factory=list)  # href, label, byte offset


def _scan(body: str) -> _Scan:
    scan = _Scan()
    heading: tuple[int, int] | None = None  # level, byte offset of the heading being read
    link: tuple[str, int] | None = None  # href, byte offset of the markdown link being read
    words: list[str] = []
    for event, span in pyromark.events_with_range(body, options=_OPTIONS):
        if isinstance(event, dict):
            kind, value = next(iter(event.items()))
        else:
            kind, value = event, None
        if kind == "Text" or kind == "Code":
            if heading is not None or link is not None:
                words.append(str(value))
            if kind == "Code":
                scan.code.append((span["start"], span["end"]))
        elif kind in NOT_CODE:
            scan.code.append((span["start"], span["end"]))
        elif kind == "Start" and value == "HtmlBlock":
            scan.blocks.append((span["start"], span["end"]))
        elif kind == "Start" and isinstance(value, dict):
            inner, detail = next(iter(value.items()))
            if inner == "CodeBlock":
                scan.code.append((span["start"], span["end"]))
                scan.blocks.append((span["start"], span["end"]))
            elif inner == "Heading":
                heading, words = (int(detail["level"][1]), span["start"]), []
            elif inner == "Link":
                link, words = (detail["dest_url"], span["start"]), []
        elif kind == "End" and heading is not None and isinstance(value, dict) and "Heading" in value:
            scan.headings.append((heading[0], "".join(words), heading[1]))
            heading = None
        elif kind == "End" and link is not None and value == "Link":
            scan.links.append((link[0], "".join(words), link[1]))
            link = None
    scan.code.sort()
    return scan


def _in_code(code: list[tuple[int, int]], position: int) -> bool:
    i = bisect.bisect_right(code, (position, 1 << 62)) - 1
    return i >= 0 and code[i][0] <= position < code[i][1]


class _Lines:
    """Byte offset to 1-based line number of the page (frontmatter lines included)."""

    def __init__(self, raw: bytes, offset: int) -> None:
        self.starts = [0] + [m.end() for m in re.finditer(rb"\n", raw)]
        self.offset = offset

    def __call__(self, position: int) -> int:
        return bisect.bisect_right(self.starts, position) + self.offset


def code_lines(body: str) -> set[int]:
    """0-based body lines that lie inside code blocks (rewriting links must leave them alone)."""
    raw = body.encode()
    lines = _Lines(raw, -1)
    found: set[int] = set()
    for start, end in _scan(body).blocks:
        found.update(range(lines(start), lines(max(start, end - 1)) + 1))
    return found


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted ranges with overlaps joined (``_in_code`` looks at the one range starting last before a position)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _comments(raw: bytes, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte ranges of ``%% comments %%`` (a ``%%`` inside code opens none)."""
    found: list[tuple[int, int]] = []
    position = 0
    while match := COMMENT.search(raw, position):
        if _in_code(code, match.start()):
            position = match.start() + 2
            continue
        found.append(match.span())
        position = match.end()
    return found


def _links_and_tags(body: str, scan: _Scan, lines: _Lines, folder: str) -> tuple[list[Link], list[str]]:
    raw = body.encode()
    hidden = _merged(scan.code + _comments(raw, scan.code))
    links: list[Link] = []
    spans: list[tuple[int, int]] = []
    for match in WIKILINK_BYTES.finditer(raw):
        if not _in_code(hidden, match.start()):
            links.extend(wikilinks_in(match.group(0).decode(errors="replace"), lines(match.start())))
            spans.append(match.span())
    for href, label, position in scan.links:
        if not _in_code(hidden, position) and (link := markdown_link(href, label, lines(position), folder)):
            links.append(link)
    tags = []
    for match in INLINE_TAG.finditer(raw):
        inside_link = any(a <= match.start() < b for a, b in spans)
        tag = match.group(1).decode(errors="replace")
        if not inside_link and not _in_code(hidden, match.start()) and not tag.isdigit():
            tags.append(tag)
    links.sort(key=lambda link: link.line)
    return links, tags


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def _property_links(meta: dict[str, Any], text: str) -> list[Link]:
    """Wikilinks in frontmatter properties (``related: "[[X]]"``): links since Obsidian 1.4, on the line of
    the frontmatter that holds them."""
    lines = text.splitlines()
    links: list[Link] = []
    for value in _strings(meta):
        for found in wikilinks_in(value, 1):
            line = next((n for n, row in enumerate(lines, 1) if f"[[{found.target}" in row), 1)
            links.append(Link(found.target, found.heading, found.display, found.kind, line))
    return links


def _chunks(title: str, body: str, headings: list[Heading], offset: int, limit: int) -> list[Chunk]:
    lines = body.splitlines()
    bounds = [(h.line - offset - 1, h) for h in headings]
    sections: list[tuple[list[Heading], str]] = []
    stack: list[Heading] = []
    start = 0
    for line_no, heading in [*bounds, (len(lines), None)]:
        sections.append((list(stack), "\n".join(lines[start:line_no])))
        if heading is None:
            break
        stack = [h for h in stack if h.level < heading.level] + [heading]
        start = line_no + 1
    chunks: list[Chunk] = []
    for trail_headings, text in sections:
        trail = " > ".join([title, *(h.text for h in trail_headings)])
        innermost = trail_headings[-1].text if trail_headings else ""
        for kind, piece in kinded_units(text, limit):
            chunks.append(Chunk(len(chunks), trail, innermost, piece, len(piece.split()), kind))
    return chunks


def parse_page(relpath: str, text: str, *, chunk_words: int = 120) -> ParsedPage:
    """Everything the index keeps about one page, from its text alone."""
    meta, body, offset, problem = split_frontmatter(text)
    title = page_name(relpath)
    scan = _scan(body)
    lines = _Lines(body.encode(), offset)
    links, inline_tags = _links_and_tags(body, scan, lines, relpath.rpartition("/")[0])
    links = _property_links(meta, text) + links
    headings = [
        Heading(level, text_without_link_markup(text).strip(), lines(pos)) for level, text, pos in scan.headings
    ]
    aliases = _as_list(meta.get("aliases", meta.get("alias")))
    tags = sorted({t.lstrip("#") for t in [*_as_list(meta.get("tags", meta.get("tag"))), *inline_tags] if t})
    description = meta.get("description") or meta.get("summary") or ""
    dated = page_date(meta, title)
    # the date goes into the trail (embedded and matched with every passage) unless the title already says it
    shown = f"{title} ({dated})" if dated and dated not in title else title
    return ParsedPage(
        title=title,
        frontmatter=meta,
        aliases=aliases,
        tags=tags,
        description=description if isinstance(description, str) else str(description),
        links=links,
        headings=headings,
        chunks=_chunks(shown, body, headings, offset, chunk_words),
        content_hash=content_hash(text),
        problems=[problem] if problem else [],
        date=dated,
    )
