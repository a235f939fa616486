"""Where a page's pipe tables are: the one reader both the chunker (``vault.entries``) and the quoting of a passage
(``answer.tables``) use, so a table is the same lines to the unit that holds it and to the quote that reads it.

A pipe table is a header line holding a pipe, a separator line of dash cells under it, and the body rows down to the
first line without a pipe (or a blank one). Lines may sit in a callout or quote (``> | a | b |``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The line under a pipe table's header: cells of dashes, each with an optional alignment colon ("| :--: | --- |").
SEPARATOR = re.compile(
    r"^[ \t>]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$"  # two cells or more
    r"|^[ \t>]*\|[ \t]*:?-+:?[ \t]*\|[ \t]*$"  # one cell, between pipes
)


@dataclass(frozen=True)
class TableLines:
    """One table, by line index: ``header``, the separator on the line after it, body rows up to ``end`` (not
    included)."""

    header: int
    end: int

    @property
    def separator(self) -> int:
        return self.header + 1

    @property
    def body(self) -> range:
        return range(self.header + 2, self.end)


def pipe_tables(lines: list[str]) -> list[TableLines]:
    """The pipe tables among ``lines`` (with or without line ends), in order."""
    found: list[TableLines] = []
    number = 1
    while number < len(lines):
        if not SEPARATOR.match(lines[number].rstrip("\r\n")) or "|" not in lines[number - 1]:
            number += 1
            continue
        last = number + 1
        while last < len(lines) and "|" in lines[last] and lines[last].strip(" \t>\r\n"):
            last += 1
        found.append(TableLines(number - 1, last))
        number = last + 1
    return found


def is_entry_unit(lines: list[str]) -> bool:
    """Whether ``lines`` are a table's entry unit (``vault.entries``: its header line and a row under it, with no
    separator line between): two lines or more, each a row between pipes."""
    rows = [line.strip(" \t>\r\n") for line in lines if line.strip(" \t>\r\n")]
    return len(rows) > 1 and all(row.startswith("|") and row.endswith("|") for row in rows)


def as_table(text: str) -> str:
    """``text`` with a separator line under its header when it is a table's entry unit, so that it is read, cut into
    rows and quoted as the table it is (without one, markdown reads the header and the row as one paragraph: seen in
    the browser, a passage's header line quoted as an answer, and a row shown as raw pipes)."""
    lines = text.splitlines()
    if not is_entry_unit(lines) or pipe_tables(lines):
        return text
    header = lines[0]
    cells = len(_CELL_BORDER.split(header.strip(" \t>").strip("|")))
    return "\n".join([header, "|" + " --- |" * cells, *lines[1:]])


_CELL_BORDER = re.compile(r"(?<!\\)\|")  # a pipe between cells; "\|" is a pipe inside one ("[[page\|label]]")
