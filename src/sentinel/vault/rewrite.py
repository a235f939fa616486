"""Rewriting the links in a page's text when the page they point at moves, as Obsidian does."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, unquote

from sentinel.vault.links import MARKDOWN_LINK, WIKILINK, link_key, split_wikilink
from sentinel.vault.parse import code_lines, split_frontmatter

INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def _outside_code(line: str, edit: Callable[[str], str]) -> str:
    out, last = [], 0
    for span in INLINE_CODE.finditer(line):
        out += [edit(line[last : span.start()]), span.group(0)]
        last = span.end()
    out.append(edit(line[last:]))
    return "".join(out)


def retarget_links(text: str, old_keys: set[str], new_target: str, new_relpath: str) -> tuple[str, int]:
    """Point every link in ``text`` whose key is in ``old_keys`` at the moved page. Returns (text, count).

    Wikilinks keep their heading and label and get ``new_target``; markdown links get the URL-encoded new path.
    Links inside code are left alone, because they are not links.
    """
    _, body, offset, _ = split_frontmatter(text)
    skip = {line + offset for line in code_lines(body)}
    count = 0

    def wiki(match: re.Match[str]) -> str:
        nonlocal count
        target, heading, label = split_wikilink(match.group(2))
        if link_key(target) not in old_keys:
            return match.group(0)
        count += 1
        inner = new_target + (f"#{heading}" if heading else "") + (f"|{label}" if label else "")
        return f"{match.group(1)}[[{inner}]]"

    def markdown(match: re.Match[str]) -> str:
        nonlocal count
        if link_key(unquote(match.group(3))) not in old_keys:
            return match.group(0)
        count += 1
        return f"{match.group(1)}[{match.group(2)}]({quote(new_relpath)}{match.group(4) or ''})"

    def edit(piece: str) -> str:
        return MARKDOWN_LINK.sub(markdown, WIKILINK.sub(wiki, piece))

    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if i not in skip and ("[[" in line or "](" in line):
            lines[i] = _outside_code(line, edit)
    return "".join(lines), count
