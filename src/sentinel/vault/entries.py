"""The units a section is retrieved by, decided per block from its structure, and the date a page carries.

A run of many short entries (list items, table rows, ``- **speaker:** text`` turns of a conversation, the
bullets of a daily note) is cut one entry a unit, so a question about one line finds that line instead of a
250-word window in which it is a twentieth of the words (issue 32: such a line lost to pages that share more
words). Prose, and lists of few or long items, keep windows of at most ``limit`` words, each after the first
opening with the last paragraph of the one before when that paragraph is short. A table of few rows stays in its
window; one longer than a window is cut between rows, each piece opening with its header and separator
(``vault.tables`` says where a table's rows are), so no row is cut and every row is read under its header. Any other
paragraph longer than a window (a list of few or long items written without blank lines, long prose) is cut between
its lines, a line longer than a window between its sentences, a sentence by words but never inside a link. A page
is ranked by its best unit either way, so entries are fused back to their page by the ladder as windows are.
"""

from __future__ import annotations

import itertools
import re
from datetime import date, datetime
from typing import Any

from sentinel.vault.links import WIKILINK
from sentinel.vault.sentences import sentence_spans
from sentinel.vault.tables import SEPARATOR, pipe_tables

ENTRY = re.compile(r"^ {0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+\S")  # a list item (or a conversation turn)
NUMBERED = re.compile(r"^ {0,3}\d{1,3}[.)][ \t]+\S")  # an ordered list's item: a step of a procedure
TABLE_ROW = re.compile(r"^ {0,3}\|")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\*\*[^*\n]{1,40}:\*\*\s*)?")  # "- **Ana:** "
ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
DATE_KEYS = ("date", "created", "day")

# Set from the definition ("pages made of many short entries"), not tuned on any set: a list of a
# few items inside an explanation stays in its window. 8 rather than 4 also bounds the cost: on the eval vault
# 4 makes 8,668 units of 4,066 chunks, 8 makes 5,340 (each unit is embedded once).
ENTRY_MIN_COUNT = 8  # a run of fewer entries is read as prose
ENTRY_MAX_MEAN_WORDS = 60  # a run whose entries average more words than this is prose set as a list
ENTRY_MIN_WORDS = 4  # an entry shorter than this ("ok", "lol") rides along with the entry before it
# A window cut at a paragraph boundary hands its last paragraph, when at most this many words, to the next
# window as its opening, so a sentence at a window's end is also read with what follows it. Issue 32 round four
# (chosen on public, vault-choose and convo-choose with 120-word windows), kept in round five on vault-fresh, a
# set written for that decision (docs/retrieval.md).
OVERLAP_WORDS = 60


def windows(text: str, limit: int) -> list[str]:
    """Split prose into pieces of at most ``limit`` words, at paragraph boundaries where possible; a piece cut
    at a boundary opens the next with its last paragraph when that is at most ``OVERLAP_WORDS`` words (the
    next piece may then run to that many words over ``limit``). A paragraph longer than ``limit`` is cut between
    lines, then sentences, then words, never inside a link (``_cut``), a pipe table in it between rows
    (``_table_pieces``)."""
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for para in re.split(r"\n\s*\n", text):
        words = len(para.split())
        if not words:
            continue
        if words > limit:
            if current:
                pieces.append("\n\n".join(current))
                current, count = [], 0
            pieces.extend(_long_paragraph(para, limit))
            continue
        if count + words > limit and current:
            pieces.append("\n\n".join(current))
            last = current[-1]
            current, count = [], 0
            if len(last.split()) <= OVERLAP_WORDS:
                current, count = [last], len(last.split())
        current.append(para.strip())
        count += words
    if current:
        pieces.append("\n\n".join(current))
    return pieces


# A link is read whole: a cut by words never falls inside "[[Page|label]]" or "[label](target)".
_LINK = re.compile(rf"{WIKILINK.pattern}|!?\[[^\[\]\n]*\]\([^()\n]*\)")


def _line_starts(text: str) -> list[int]:
    return [m.end() for m in re.finditer(r"\n", text)]


def _sentence_starts(text: str) -> list[int]:
    lead = len(text) - len(text.lstrip())  # an indented line is read as the line it is, not as a code block
    return [lead + s.start for s in sentence_spans(text[lead:])[1:]]


def _word_starts(text: str) -> list[int]:
    links = [m.span() for m in _LINK.finditer(text)]  # in order, none overlapping
    starts: list[int] = []
    at = 0
    for word in re.finditer(r"\S+", text):
        while at < len(links) and links[at][1] <= word.start():
            at += 1
        if not (at < len(links) and links[at][0] < word.start()):
            starts.append(word.start())
    return starts[1:]


# Where a paragraph longer than a window may be cut, the first that keeps its pieces within a window wins: between
# lines (a list item, a line of a poem), between sentences (``vault.sentences``, the one splitter), by words.
_BOUNDARIES = (_line_starts, _sentence_starts, _word_starts)


def _cut(text: str, limit: int, level: int = 0) -> list[str]:
    """``text`` (no blank line in it) as pieces of at most ``limit`` words, each a verbatim slice (its line breaks
    kept): cut between lines, a line over ``limit`` between its sentences, a sentence over ``limit`` between words,
    never inside a link (a link alone over ``limit`` is a piece of its own). Every word lands in one piece."""
    if len(text.split()) <= limit or level == len(_BOUNDARIES):
        return [text.strip()] if text.strip() else []
    bounds = sorted({0, *_BOUNDARIES[level](text), len(text)})
    pieces: list[str] = []
    current = ""
    for start, end in itertools.pairwise(bounds):
        part = text[start:end]
        words = len(part.split())
        if words > limit or (current.strip() and len(current.split()) + words > limit):
            pieces += _cut(current, limit, level + 1)
            current = ""
        if words > limit:
            pieces += _cut(part, limit, level + 1)
        else:
            current += part
    return pieces + _cut(current, limit, level + 1)


def _long_paragraph(para: str, limit: int) -> list[str]:
    """A paragraph over ``limit`` words: its pipe tables cut between rows, the lines around them by ``_cut``."""
    lines = para.splitlines()
    pieces: list[str] = []
    at = 0
    for table in pipe_tables(lines):
        pieces += _cut("\n".join(lines[at : table.header]), limit)
        pieces += _table_pieces(lines[table.header : table.end], limit)
        at = table.end
    return pieces + _cut("\n".join(lines[at:]), limit)


def _table_pieces(table: list[str], limit: int) -> list[str]:
    """A pipe table (header, separator, rows) as pieces of whole rows, each opening with the header and the
    separator, of at most ``limit`` words where one row allows (a longer row is a piece of its own, never cut:
    a row's cells are read together, issue 32's h51d row 6 split "Dominio personalizado | Botón")."""
    head = [line.strip() for line in table[:2]]
    head_words = len(" ".join(head).split())
    pieces: list[str] = []
    rows: list[str] = []
    count = head_words
    for row in (line.strip() for line in table[2:]):
        words = len(row.split())
        if rows and count + words > limit:
            pieces.append("\n".join(head + rows))
            rows, count = [], head_words
        rows.append(row)
        count += words
    return [*pieces, "\n".join(head + rows)]


def _list_run(lines: list[str], i: int) -> tuple[list[str], int]:
    """The list items from line ``i`` on (nested items and indented lines belong to the item above; a blank
    line between items keeps the list going), and the line after the run."""
    entries: list[list[str]] = []
    j = i
    while j < len(lines):
        line = lines[j]
        if ENTRY.match(line):
            entries.append([line.strip()])
        elif line.strip() and (line.startswith((" ", "\t")) and entries):
            entries[-1].append(line.strip())
        elif not line.strip() and j + 1 < len(lines) and ENTRY.match(lines[j + 1]):
            pass
        else:
            break
        j += 1
    return ["\n".join(e) for e in entries], j


def _table_run(lines: list[str], i: int) -> tuple[list[str], int]:
    """The rows of the table at line ``i``, each with the header row as its context, and the line after it."""
    j = i
    while j < len(lines) and TABLE_ROW.match(lines[j]):
        j += 1
    rows = [row.strip() for row in lines[i:j]]
    if len(rows) >= 2 and SEPARATOR.match(rows[1]):
        return [f"{rows[0]}\n{row}" for row in rows[2:]], j
    return rows, j


def _words(entry: str) -> int:
    """Words an entry says, its list marker and speaker left out."""
    return len(MARKER.sub("", entry, count=1).split())


def _is_entries(entries: list[str]) -> bool:
    words = [_words(e) for e in entries]
    return len(entries) >= ENTRY_MIN_COUNT and sum(words) / len(words) <= ENTRY_MAX_MEAN_WORDS


def _joined_short(entries: list[str]) -> list[str]:
    out: list[str] = []
    for entry in entries:
        if out and _words(entry) < ENTRY_MIN_WORDS:
            out[-1] = f"{out[-1]}\n{entry}"
        else:
            out.append(entry)
    if len(out) > 1 and _words(out[0]) < ENTRY_MIN_WORDS:
        out[1] = f"{out[0]}\n{out[1]}"
        out.pop(0)
    return out


ENTRY_UNIT = "entry"
WINDOW_UNIT = "window"


def units(text: str, limit: int) -> list[str]:
    """The retrieval units of one section, in page order: one per entry of each run of short entries,
    windows of at most ``limit`` words for the rest. Nothing is dropped: every word lands in one unit."""
    return [text for _, text in kinded_units(text, limit)]


def kinded_units(text: str, limit: int) -> list[tuple[str, str]]:
    """``units`` with the kind of each: ``entry`` or ``window``."""
    lines = text.splitlines()
    out: list[tuple[str, str]] = []
    prose: list[str] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            fenced = not fenced
        if not fenced and (ENTRY.match(line) or TABLE_ROW.match(line)):
            entries, j = (_list_run if ENTRY.match(line) else _table_run)(lines, i)
            if _is_entries(entries):
                out += [(WINDOW_UNIT, w) for w in windows("\n".join(prose), limit)]
                prose = []
                for entry in _joined_short(entries):
                    out += [(ENTRY_UNIT, e) for e in (windows(entry, limit) if len(entry.split()) > limit else [entry])]
            else:
                prose += lines[i:j]
            i = max(j, i + 1)
            continue
        prose.append(line)
        i += 1
    return out + [(WINDOW_UNIT, w) for w in windows("\n".join(prose), limit)]


def _iso(value: Any) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()[:10]
    if isinstance(value, str) and (found := ISO_DATE.search(value)):
        return _checked(found)
    return ""


def _checked(found: re.Match[str]) -> str:
    try:
        return date(int(found[1]), int(found[2]), int(found[3])).isoformat()
    except ValueError:
        return ""  # 2024-13-45 is not a date


def page_date(meta: dict[str, Any], title: str) -> str:
    """The date a page names for itself: its frontmatter ``date`` (or ``created``, ``day``), else a
    YYYY-MM-DD in its title; "" when neither does (the index then falls back to the file's)."""
    for key in DATE_KEYS:
        if found := _iso(meta.get(key)):
            return found
    match = ISO_DATE.search(title)
    return _checked(match) if match else ""
