"""What several primitives need to know about a page on disk: its text, short hash and sections."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sentinel.vault.parse import content_hash, parse_page
from sentinel.vault.write import read_text

HASH_CHARS = 12  # enough to tell versions apart; short enough to cost the model few tokens


def short_hash(text: str) -> str:
    return content_hash(text)[:HASH_CHARS]


def hash_matches(expected: str, text: str) -> bool:
    expected = expected.strip().lower()
    return len(expected) >= 8 and content_hash(text).startswith(expected)


@dataclass(frozen=True)
class Section:
    number: int
    level: int
    heading: str
    start: int  # line index of the heading
    end: int  # line index after the section's last line (subsections included)
    words: int


def sections(relpath: str, text: str) -> list[Section]:
    """Each heading's section, from its line to the next heading of the same or a higher level."""
    lines = text.splitlines()
    heads = parse_page(relpath, text).headings
    found = []
    for i, head in enumerate(heads):
        start = head.line - 1
        end = next((h.line - 1 for h in heads[i + 1 :] if h.level <= head.level), len(lines))
        words = sum(len(line.split()) for line in lines[start + 1 : end])
        found.append(Section(i + 1, head.level, head.text, start, end, words))
    return found


def load(path: Path) -> str:
    return read_text(path)
