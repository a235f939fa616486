"""What several primitives need to know about a page on disk: its text, its edit hash and its sections."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sentinel.vault.hashes import edit_hash
from sentinel.vault.parse import parse_page
from sentinel.vault.write import read_regular, text_for_reading


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


def load(path: Path) -> tuple[str, str]:
    """The page's text for reading (undecodable bytes shown as U+FFFD) and its edit hash."""
    data = read_regular(path)
    return text_for_reading(data), edit_hash(data)
