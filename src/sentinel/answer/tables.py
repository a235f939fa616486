"""A markdown table in a quoted passage: a row is read with its table's header, and quoted with it.

Seen in the browser (a Catalyst page's tier table, held out by the lead): "was kostet die VIP Stufe?" was answered
by quoting the header row alone, and "und Supporter?" by the row "Supporter-Badge | | ✓ |", which names the column
the follow-up names; the price row, which holds the amount asked for, never reached the reader. A row's cells mean
what its header says, so a row is ranked by its words and its header's (then the header's words, the column a
question names, are in every row alike and no row wins by repeating them), and it is shown as a small table of its
own: the header, the separator, the row (Open WebUI draws it as a table). A header row is never quoted alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sentinel.gates.support import content_words, stems
from sentinel.vault.sentences import Sentence
from sentinel.vault.tables import is_entry_unit, pipe_tables

JointRule = Callable[[int, int], str]  # how two quoted sentences that are no table's rows are joined (by index)


@dataclass(frozen=True)
class _Table:
    header: str  # the header line as the page writes it
    separator: str
    start: int  # character offsets of the body rows (after the separator) in the passage's text
    end: int


@dataclass(frozen=True)
class Tables:
    """The tables of one passage: which of its sentences (``sentence_spans``) are a header or a body row."""

    headers: frozenset[int]  # indexes of the spans that are a table's header row
    rows: dict[int, _Table]  # index of a body row's span: its table

    def is_header(self, index: int) -> bool:
        return index in self.headers

    def in_table(self, index: int) -> bool:
        return index in self.rows

    def read(self, spans: Sequence[Sentence], index: int) -> str:
        """What a reader reads of ``spans[index]``: a body row with its header above it, any other sentence as it
        stands."""
        table = self.rows.get(index)
        return f"{table.header}\n{spans[index].text}" if table else spans[index].text

    def names_a_column(self, index: int, words: set[str]) -> bool:
        """Whether ``spans[index]`` is a body row whose header holds one of ``words`` (content words): a question
        naming a column ("… the VIP tier …") asks for a cell of it, so on a tie the row answers before prose."""
        table = self.rows.get(index)
        return bool(table and words & set(content_words(table.header)))

    def joined(self, spans: Sequence[Sentence], shown: Sequence[int], joint: JointRule) -> str:
        """The sentences ``shown`` (in page order) as one quote: the body rows of one table as a table of their
        own (header, separator, the rows, one a line), kept apart from the other sentences by a blank line; the
        other sentences joined as ``joint`` says."""
        pieces: list[tuple[int, int, str]] = []  # (first index, last index, text)
        for index in shown:
            table = self.rows.get(index)
            last = pieces[-1] if pieces else None
            if table and last and self.rows.get(last[1]) is table:
                pieces[-1] = (last[0], index, f"{last[2]}\n{spans[index].text.strip()}")
            elif table:
                pieces.append((index, index, f"{table.header}\n{table.separator}\n{spans[index].text.strip()}"))
            else:
                pieces.append((index, index, spans[index].text))
        quote = pieces[0][2]
        for (_, before, _), (after, _, piece) in itertools.pairwise(pieces):
            if self.in_table(before) or self.in_table(after):
                quote += "\n\n" + piece
            else:
                quote += joint(before, after) + piece
        return quote


def shared_words(text: str, asked: str, row: bool) -> int:
    """How many of ``asked``'s content words ``text`` holds: whole words in a sentence, stems in a table's row,
    whose cells are labels a question inflects ("Maximale Dateigröße" for "Wie groß darf eine Datei maximal …").
    The one reading of a row's words for both the quote (``quotes.best_sentences``) and the window a passage is
    narrowed to (``packet.narrowed``)."""
    if row:
        return len(stems(text) & stems(asked))
    return len(set(content_words(text)) & set(content_words(asked)))


def first_cell(row: str) -> str:
    """The first cell of a pipe table's row as the page writes it ("| Delete the current line | `Cmd+Shift+K` |":
    "Delete the current line"), where a row names its thing; "" for a line that is no row."""
    line = row.strip().lstrip("> \t")
    return line[1:].split("|", 1)[0].strip() if line.startswith("|") else ""


def body_rows(text: str) -> list[str]:
    """The body rows of ``text``'s pipe tables; for a table's entry unit (``vault.entries``: its header line and one
    row, no separator), that row."""
    lines = text.strip().splitlines()
    if found := pipe_tables(lines):
        return [lines[index] for table in found for index in table.body]
    return lines[1:] if is_entry_unit(lines) else []


def marked(quoted: str, mark: str) -> str:
    """A quote (``quoted_lines``) with its citation mark ("[1]"): after its last sentence, or on a quoted line of
    its own when the quote ends in a table row (after a row's last pipe it would be read as a cell of it)."""
    last = quoted.rsplit("\n", 1)[-1].removeprefix(">").strip()
    return f"{quoted}\n>\n> {mark}" if last.startswith("|") and last.endswith("|") else f"{quoted} {mark}"


def tables_in(text: str, spans: Sequence[Sentence]) -> Tables:
    """The pipe tables of ``text`` (a header line, a separator line under it, the body rows down to the first line
    without a pipe) and which of ``spans`` are their headers and body rows. A table whose header the passage does
    not hold (a passage may open inside a table) is none: its rows are read as sentences of their own."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found: list[tuple[int, int, _Table]] = []  # (header start, header end, table)
    for at in pipe_tables(lines):
        header, separator = lines[at.header].strip().lstrip("> \t"), lines[at.separator].strip().lstrip("> \t")
        table = _Table(header, separator, offsets[at.separator + 1], offsets[at.end])
        found.append((offsets[at.header], offsets[at.separator], table))
    headers: set[int] = set()
    rows: dict[int, _Table] = {}
    for index, span in enumerate(spans):
        for head_start, head_end, table in found:
            if head_start <= span.start < head_end:
                headers.add(index)
            elif table.start <= span.start < table.end:
                rows[index] = table
    return Tables(frozenset(headers), rows)
