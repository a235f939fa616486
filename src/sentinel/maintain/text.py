"""The text the analysis pass gives the model, and how a long page is cut into overlapping windows."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from sentinel.paths import Role, page_name
from sentinel.vault.hashes import content_hash
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.parse import split_frontmatter
from sentinel.vault.write import read_regular

# Tokens the analysis instructions and chat template take around the page text (measured ~250 on Qwen's
# template; rounded up so the estimate errs towards smaller windows).
PROMPT_OVERHEAD_TOKENS = 400


@dataclass(frozen=True)
class PageText:
    path: str
    role: Role
    text: str  # title line + body without frontmatter, links shown as their visible words
    hash: str  # content hash of the file as read now (stored with the analysis, so edits requeue it)

    @property
    def empty(self) -> bool:
        return not self.text.split("\n", 1)[-1].strip()


def read_page_text(vault: Path, relpath: str, role: Role) -> PageText | None:
    """The page as the analysis pass reads it, or None when the file is gone or unreadable."""
    try:
        raw = read_regular(vault / relpath)
    except OSError:  # gone, unreadable, or a FIFO planted under a page's name
        return None
    # Decoded exactly as the index sync does, so the hash matches the one it stored for unchanged files.
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    _, body, _, _ = split_frontmatter(text)
    visible = f"Title: {page_name(relpath)}\n\n{text_without_link_markup(body).strip()}"
    return PageText(relpath, role, visible, content_hash(text))


def window_chars(num_ctx: int, reply_tokens: int, chars_per_token: float) -> int:
    """How many characters of page text fit one call of a ``num_ctx`` window, by a conservative estimate."""
    tokens = num_ctx - reply_tokens - PROMPT_OVERHEAD_TOKENS
    return max(200, math.floor(tokens * chars_per_token))


_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"(?<=[.!?])\s+"), re.compile(r"\s+"))


def _cut_point(text: str, start: int, limit: int) -> int:
    """The end of a window starting at ``start``: the last paragraph, sentence or word break before the limit."""
    end = start + limit
    if end >= len(text):
        return len(text)
    floor = start + limit // 2  # never cut a window to less than half its size to find a nicer break
    for pattern in _BREAKS:
        breaks = [m.end() for m in pattern.finditer(text, floor, end)]
        if breaks:
            return breaks[-1]
    return end


def windows(text: str, size: int, overlap: int) -> list[str]:
    """``text`` as consecutive windows of at most ``size`` characters sharing about ``overlap`` characters,
    cut at paragraph, sentence or word breaks where one is near."""
    overlap = min(overlap, size // 3)
    pieces: list[str] = []
    start = 0
    while True:
        end = _cut_point(text, start, size)
        pieces.append(text[start:end])
        if end >= len(text):
            return pieces
        next_start = end - overlap
        # start the next window at a word break inside the overlap, never going backwards
        space = text.find(" ", next_start, end)
        start = space + 1 if space != -1 else next_start
