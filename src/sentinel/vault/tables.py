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
