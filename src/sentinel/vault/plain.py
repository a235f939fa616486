"""A chunk of markdown as the plain text a reader sees, for surfaces that show passages (the search page).

Tokenised by pyromark (the parser ``vault.parse`` uses), not by patterns: emphasis markers, heading and list
markup go, link labels stay, images and embeds (``![[icon.svg#icon]]``) go, Obsidian's ``%%comments%%`` go,
``==highlights==`` keep their words, a callout keeps its title. Code blocks stay as written. Paragraphs and
list items stay on lines of their own. The tools keep returning passages verbatim; this is only what a
person's screen shows.
"""

from __future__ import annotations

import re

import pyromark

_OPTIONS = (
    pyromark.Options.ENABLE_TABLES
    | pyromark.Options.ENABLE_STRIKETHROUGH
    | pyromark.Options.ENABLE_WIKILINKS
    | pyromark.Options.ENABLE_TASKLISTS
)
_COMMENT = re.compile(r"%%.*?%%", re.DOTALL)
_HIGHLIGHT = re.compile(r"==(?=\S)(.+?)(?<=\S)==")
_CALLOUT = re.compile(r"^\[![\w-]+\][+-]? ?", re.MULTILINE)  # "> [!warning]+ Title": the title stays
_BLOCK_ENDS = {
    "Paragraph": "\n\n",
    "Heading": "\n\n",
    "CodeBlock": "\n\n",
    "BlockQuote": "\n\n",
    "Item": "\n",
    "List": "\n",
    "TableRow": "\n",
    "TableHead": "\n",
}


def plain_text(markdown: str) -> str:
    """``markdown`` without its markup: the words, one block per line."""
    out: list[str] = []
    in_image = 0
    for event in pyromark.events(_COMMENT.sub("", markdown), options=_OPTIONS):
        if isinstance(event, str):  # SoftBreak, HardBreak, Rule
            out.append({"SoftBreak": " ", "HardBreak": "\n"}.get(event, "\n"))
            continue
        (kind, value), *_ = event.items()
        name = value if isinstance(value, str) else next(iter(value), "") if isinstance(value, dict) else ""
        if kind == "Start" and name == "Image":
            in_image += 1
        elif kind == "End" and name == "Image":
            in_image -= 1
        elif in_image:
            continue
        elif kind in ("Text", "Code"):
            out.append(str(value))
        elif kind == "Start" and name == "Item":
            out.append("• ")
        elif kind == "End" and name in _BLOCK_ENDS:
            out.append(_BLOCK_ENDS[name])
        elif kind == "End" and name == "TableCell":
            out.append("  ")
    text = _CALLOUT.sub("", _HIGHLIGHT.sub(r"\1", "".join(out)))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
