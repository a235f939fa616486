"""The concept-name gate: a concept is a name, not a sentence, a link or a piece of markup.

Protects the graph and wiki/ from "concepts" that are whole sentences the model copied (verbatim, so the
verbatim gate lets them through), markdown link text with its target, or formatting: each would become a
growth-queue name and could become a page title. A name is kept only when it is short (at most ``MAX_WORDS``
words and ``MAX_CHARS`` characters), carries a letter, holds no link or markup characters, and has no sentence
or clause break in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sentinel.gates import Verdict, sorted_items

MAX_WORDS = 6
MAX_CHARS = 60
# Link and markup syntax ([[...]], [text](url), |, #heading, emphasis, code, HTML, URLs) never belongs in a name.
_MARKUP = re.compile(r"\[|\]|\||#|\*|`|<|>|\{|\}|://|\bwww\.|\\|\n")
# A sentence or clause inside: a full stop, question or exclamation mark, semicolon or comma before a space,
# or a sentence mark at the end ("Node.js" and "v1.2" keep their inner dots).
_BREAK = re.compile(r"[.!?;,](?:\s|$)|[:]$")
_LETTER = re.compile(r"[^\W\d_]")


def problem(name: str) -> str:
    """What makes ``name`` not a concept name, or "" when it is one."""
    words = name.split()
    if not _LETTER.search(name):
        return "has no letter"
    if len(words) > MAX_WORDS or len(name) > MAX_CHARS:
        return f"is longer than a name ({len(words)} words, {len(name)} characters)"
    if _MARKUP.search(name):
        return "holds link or markup characters"
    if _BREAK.search(name):
        return "holds a sentence or clause break"
    return ""


def well_formed(names: Iterable[str]) -> Verdict[str]:
    """Keep the names shaped like a concept name (see the module docstring), in the order given."""
    kept: list[str] = []
    dropped: list[str] = []
    reasons: list[str] = []
    for name in names:
        why = problem(name)
        if why:
            dropped.append(name)
            reasons.append(f"{name[:80]!r} {why}")
        else:
            kept.append(name)
    return sorted_items(kept, dropped, "not a concept name: " + "; ".join(reasons))
