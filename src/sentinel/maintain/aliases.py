"""Recording an accepted merge: the name becomes an alias in the page's own frontmatter.

The vault stays the truth: the alias lives in the page (Obsidian's own ``aliases`` field), the index picks it up
on sync, and every link written with the merged name resolves through it in one update. Only the frontmatter
is touched, textually, so the body, key order and comments survive byte for byte; the result is parsed back
and must equal the old frontmatter plus the one alias, or nothing is written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sentinel.maintain import ledger
from sentinel.vault.parse import FRONTMATTER_BLOCK, split_frontmatter
from sentinel.vault.write import PageUndecodable, atomic_write, read_exact


class AliasRefused(ValueError):
    """The alias could not be added without risking the page's frontmatter; the message says why."""


_ALIAS_KEY = re.compile(r"^(aliases|alias)[ \t]*:(.*)$", re.MULTILINE)


def _item(alias: str, indent: str = "  ") -> str:
    return f"{indent}- " + json.dumps(alias, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _with_alias(text: str, alias: str) -> str:
    block = FRONTMATTER_BLOCK.match(text)
    if not block:
        return f"---\naliases:\n{_item(alias)}\n---\n{text}"
    inner_start, inner_end = block.span(1)
    inner = text[inner_start:inner_end]
    key = _ALIAS_KEY.search(inner)
    if key is None:
        addition = ("" if inner.endswith("\n") or not inner else "\n") + f"aliases:\n{_item(alias)}\n"
        return text[:inner_end] + addition + text[inner_end:]
    if key.group(2).strip():
        # Inline form (``aliases: [a, b]`` or ``aliases: a``): rewrite that one line as a block list.
        current = _as_list(split_frontmatter(text)[0].get(key.group(1)))
        lines = "\n".join(_item(a) for a in [*current, alias])
        return text[: inner_start + key.start()] + f"{key.group(1)}:\n{lines}" + text[inner_start + key.end() :]
    # Block list: add one item after the last line that belongs to it, indented like the items before it.
    position = inner_start + key.end() + 1
    indent = "  "
    for line in text[position:inner_end].splitlines(keepends=True):
        if not line.startswith((" ", "\t", "-")):
            break
        if line.lstrip().startswith("-"):
            indent = line[: len(line) - len(line.lstrip())]
        position += len(line)
    return text[:position] + _item(alias, indent) + "\n" + text[position:]


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def add_alias(path: Path, alias: str, evidence: dict[str, Any] | None = None) -> None:
    """Add ``alias`` to the page's frontmatter aliases, atomically; ``AliasRefused`` if that is not safe.
    The write is recorded in the pass's ledger with ``evidence`` (what let the merge through)."""
    try:
        page = read_exact(path, path.name)
    except PageUndecodable as err:
        raise AliasRefused(f"alias '{alias}' not added: {err}") from err
    text = page.text
    before, _, _, problem = split_frontmatter(text)
    if problem:
        raise AliasRefused(f"{path.name}: its frontmatter does not parse ({problem}); alias '{alias}' not added")
    updated = _with_alias(text, alias)
    after, after_body, _, after_problem = split_frontmatter(updated)
    field = "alias" if "alias" in before and "aliases" not in before else "aliases"
    expected = {**before, field: [*_as_list(before.get(field)), alias]}
    if after_problem or after != expected or after_body != split_frontmatter(text)[1]:
        raise AliasRefused(f"{path.name}: adding alias '{alias}' would change more than that one entry; add it by hand")
    atomic_write(path, page.bytes_of(updated))
    ledger.record(path, text, updated, {"alias": alias, **(evidence or {})})
