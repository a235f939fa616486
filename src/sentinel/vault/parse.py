"""Parse one page: frontmatter, links, headings, tags and heading-aware chunks, plus its content hash.

Markdown is tokenised with markdown-it so that links inside code spans and code blocks are not links.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import frontmatter
import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from sentinel.paths import page_name
from sentinel.vault.links import Link, markdown_link, text_without_link_markup, wikilinks_in

_MD = MarkdownIt("commonmark").enable("table").enable("strikethrough")
FRONTMATTER_BLOCK = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)
INLINE_TAG = re.compile(r"(?<![\w/#&])#([^\s#.,;:!?()\[\]{}'\"`]*[^\s#.,;:!?()\[\]{}'\"`\d][^\s#.,;:!?()\[\]{}'\"`]*)")


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


def content_hash(text: str) -> str:
    """Hash of what a page says, not of its link markup: one field for the write guard, the analysis queue
    and edit detection."""
    return hashlib.sha256(text_without_link_markup(text).encode()).hexdigest()


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
        post = frontmatter.loads(text)
    except (yaml.YAMLError, ValueError) as err:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        return {}, body, offset, f"broken frontmatter (YAML error: {first}); indexed without it"
    if not isinstance(post.metadata, dict):
        return {}, body, offset, "frontmatter is not a mapping of keys to values; indexed without it"
    return _jsonable(post.metadata), body, offset, None


def _inline_text(token: Token) -> str:
    return "".join(c.content for c in token.children or [] if c.type in ("text", "code_inline", "softbreak"))


def _links_and_tags(tokens: list[Token], offset: int) -> tuple[list[Link], list[str]]:
    links: list[Link] = []
    tags: list[str] = []
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        line = (token.map[0] if token.map else 0) + offset + 1
        label_parts: list[str] | None = None
        href = ""
        for child in token.children:
            if child.type == "text":
                links.extend(wikilinks_in(child.content, line))
                tags.extend(INLINE_TAG.findall(child.content))
                if label_parts is not None:
                    label_parts.append(child.content)
            elif child.type == "link_open":
                href, label_parts = str(child.attrs.get("href", "")), []
            elif child.type == "link_close" and label_parts is not None:
                link = markdown_link(href, "".join(label_parts), line)
                if link:
                    links.append(link)
                label_parts = None
    return links, tags


def _headings(tokens: list[Token], offset: int) -> list[Heading]:
    found = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            level = int(token.tag[1])
            text = text_without_link_markup(_inline_text(tokens[i + 1])).strip()
            found.append(Heading(level, text, (token.map[0] if token.map else 0) + offset + 1))
    return found


def _split_words(text: str, limit: int) -> list[str]:
    """Split a section into pieces of at most ``limit`` words, at paragraph boundaries where possible."""
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for para in re.split(r"\n\s*\n", text):
        words = len(para.split())
        if not words:
            continue
        if words > limit:
            if current:
                pieces.append("\n\n".join(current))
                current, count = [], 0
            tokens = para.split()
            pieces.extend(" ".join(tokens[i : i + limit]) for i in range(0, len(tokens), limit))
            continue
        if count + words > limit and current:
            pieces.append("\n\n".join(current))
            current, count = [], 0
        current.append(para.strip())
        count += words
    if current:
        pieces.append("\n\n".join(current))
    return pieces


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
        for piece in _split_words(text, limit):
            chunks.append(Chunk(len(chunks), trail, innermost, piece, len(piece.split())))
    return chunks


def parse_page(relpath: str, text: str, *, chunk_words: int = 250) -> ParsedPage:
    """Everything the index keeps about one page, from its text alone."""
    meta, body, offset, problem = split_frontmatter(text)
    title = page_name(relpath)
    tokens = _MD.parse(body)
    links, inline_tags = _links_and_tags(tokens, offset)
    headings = _headings(tokens, offset)
    aliases = _as_list(meta.get("aliases", meta.get("alias")))
    tags = sorted({t.lstrip("#") for t in [*_as_list(meta.get("tags", meta.get("tag"))), *inline_tags] if t})
    description = meta.get("description") or meta.get("summary") or ""
    return ParsedPage(
        title=title,
        frontmatter=meta,
        aliases=aliases,
        tags=tags,
        description=description if isinstance(description, str) else str(description),
        links=links,
        headings=headings,
        chunks=_chunks(title, body, headings, offset, chunk_words),
        content_hash=content_hash(text),
        problems=[problem] if problem else [],
    )
