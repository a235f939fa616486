"""A quotation of another page inside a note: the one shape it is written in, and the one test that reads it.

A saved note keeps what an answer rested on as the source's own sentences in an Obsidian quote callout headed
by a link to the source (``> [!quote] [[Page]]``). Those sentences are the source's, not the note's: a pass that
collects what pages say (the concept step's defining paragraphs, name resolution's contexts) skips a quote
callout, so a quoted passage never counts as a second source beside the page it came from.
"""

from __future__ import annotations

import re

QUOTE_CALLOUT = "> [!quote]"
_QUOTE_START = re.compile(r"^\s*>\s*\[!quote\][-+]?", re.IGNORECASE)
_QUOTED_LINE = re.compile(r"^\s*(?:>\s?)+")
_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")


def quote_block(link: str, text: str) -> str:
    """``text`` as a quote callout headed by ``link``; every line of it inside the callout."""
    return f"{QUOTE_CALLOUT} {link}\n{quoted_lines(text)}"


def quoted_lines(text: str) -> str:
    """``text`` as a markdown quote, every line of it inside (a line the page quoted already, "> …", is quoted
    once: this is the quote), its paragraphs kept apart by a quoted blank line (">"): lines in a row are drawn
    as one paragraph, so two units with a block between them would read as one run-on line."""
    paragraphs = [
        [_QUOTED_LINE.sub("", line).strip() for line in paragraph.splitlines()]
        for paragraph in _PARAGRAPHS.split(text.strip())
    ]
    shown = ["\n".join(f"> {line}" for line in lines if line) for lines in paragraphs]
    return "\n>\n".join(paragraph for paragraph in shown if paragraph)


def is_quoted(paragraph: str) -> bool:
    """Whether a paragraph is a quote callout: another page's words, not the page's own."""
    return bool(_QUOTE_START.match(paragraph))
