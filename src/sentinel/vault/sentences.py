"""A passage of markdown cut into the sentences a person reads, on the parser's boundaries, never inside markup.

A quote shown to a person (the extractive answer, a passage narrowed to fit the model's window, the sentences a
save keeps) is cut from a page's markdown. Cut by a pattern alone, a quote kept a code fence's opener ("```yaml")
with the sentence before it, and cut a bold question ("**Was passiert? Verliere ich …?**") after its first
question mark, leaving a stray ``**`` on the screen. So the blocks and inline spans come from pyromark (the parser
``vault.parse`` indexes with): every block (paragraph, heading, list item, table row, code block) is cut from the
next, a sentence ends at ".", "!" or "?" in the text a reader reads (closing markup after it stays with it; a
list's "1." is a marker), and no cut falls inside an inline span (bold, italic, strikethrough, code, a link), a
table row, a code or HTML block, or a parenthesis its block closes (an abbreviation's dot inside one cut
"Sekundäre Geräte (z. B. dein Handy) empfangen …" into a quote opening "dein Handy) empfangen …", seen in the
browser at stop 52). A code block is one unit, fences included, and says so: a chunk of a page
may open or close inside one (``vault.entries`` cuts windows at blank lines), so a quote for a person is made
of prose units only. A footnote's definition ("[^1]: …") is one unit that says so too.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

import pyromark

_OPTIONS = (
    pyromark.Options.ENABLE_TABLES
    | pyromark.Options.ENABLE_STRIKETHROUGH
    | pyromark.Options.ENABLE_WIKILINKS
    | pyromark.Options.ENABLE_TASKLISTS
    | pyromark.Options.ENABLE_FOOTNOTES
)
_BLOCKS = {"Paragraph", "Heading", "Item", "TableHead", "TableRow", "BlockQuote", "CodeBlock", "HtmlBlock"}
_BLOCKS |= {"FootnoteDefinition"}
_UNCUT = {"Strong", "Emphasis", "Strikethrough", "Link", "Image", "WikiLink", "TableHead", "TableRow"}
# A footnote's definition ("[^1]: El ID de la bóveda es …") is no quote either: it belongs to the sentence that
# refers to it, and a chat draws its marker as "¹:" (seen in Open WebUI, quoted from a page about something else).
_VERBATIM_BLOCKS = {"CodeBlock", "HtmlBlock", "FootnoteDefinition"}
_UNCUT |= _VERBATIM_BLOCKS
# A sentence ends at . ! ? (or 。) with the markup that closes around it (``**``, ``_``, a quote mark, a bracket).
_SENTENCE_END = re.compile(r"[.!?。][*_~`\"'”’»)\]]*(?=\s)")
_WORDS = re.compile(r"[^\W_]")
_CALLOUT_TITLE = re.compile(r"^[ \t>]*\[![\w-]+\][+-]?[^\n]*$", re.MULTILINE)  # shown as a title of its own
# A callout's type marker ("[!tip]", "[!example]-") is drawn as an icon, never read: a unit opening with it starts
# after it ("> [!tip] Si prefieres …" is read as "Si prefieres …"; a marker alone is no unit).
_CALLOUT_MARKER = re.compile(r"\[![\w-]+\][+-]?[ \t]*")


def as_read(text: str) -> str:
    """``text`` without the blockquote and callout markers it opens with ("> [!tip] Si prefieres …" is read as
    "Si prefieres …"), as a reader of the page sees it: a model copies them from its passage, and Open WebUI shows
    them raw (seen in the browser check of stop 47: a written sentence shown as "[!tip] Si prefieres …")."""
    start = len(text) - len(text.lstrip(" \t>"))
    marker = _CALLOUT_MARKER.match(text, start)
    return text[marker.end() if marker else start :]


@dataclass(frozen=True)
class Sentence:
    start: int  # character offsets into the text it was cut from
    end: int
    text: str
    block: bool  # a code or HTML block or a footnote's definition: never quoted to a person (a chunk may hold
    # only part of a code block; a footnote belongs to where it is referred to)


def _name(value: object) -> str:
    if isinstance(value, str):
        return value
    return next(iter(value), "") if isinstance(value, dict) else ""


def sentence_spans(text: str) -> list[Sentence]:
    """The sentences of ``text`` in order, each a verbatim slice of it (surrounding whitespace and bare markup
    such as a lone "-" or ">" left out)."""
    raw = text.encode("utf-8")
    char_at = _char_offsets(text, len(raw))
    cuts: set[int] = {0, len(text)}
    starts: list[int] = []  # where each block begins: a parenthesis is closed in the block it opens in
    uncut: list[tuple[int, int]] = []
    verbatim: list[tuple[int, int]] = []
    prose: list[tuple[int, int]] = []  # the text a reader reads: a list's "1." is a marker, not a sentence end
    for event, span in pyromark.events_with_range(text, options=_OPTIONS):
        if not isinstance(event, dict):
            continue
        kind, value = next(iter(event.items()))
        start, end = char_at[span["start"]], char_at[span["end"]]
        name = _name(value) if kind in ("Start", "End") else kind
        if kind == "Start" and name in _BLOCKS:
            cuts.update((start, end))
            starts.append(start)
        if (kind == "Start" and name in _UNCUT) or kind == "Code":
            uncut.append((start, end))
        if kind == "Start" and name in _VERBATIM_BLOCKS:
            verbatim.append((start, end))
        if kind == "Text":
            prose.append((start, end))
    cuts.update(match.end() for match in _CALLOUT_TITLE.finditer(text))
    prose.sort()
    uncut = _merged(uncut + _parentheses(text, prose, sorted(starts)))
    uncut_starts = [start for start, _ in uncut]
    for match in _SENTENCE_END.finditer(text):
        inside = bisect.bisect_right(prose, (match.start(), len(text))) - 1
        in_prose = inside >= 0 and prose[inside][0] <= match.start() < prose[inside][1]
        within = bisect.bisect_left(uncut_starts, match.end()) - 1  # the last span opening before the end
        if in_prose and not (within >= 0 and match.end() < uncut[within][1]):
            cuts.add(match.end())
    bounds = sorted(cuts)
    out = []
    for start, end in itertools.pairwise(bounds):
        piece = text[start:end]
        if not _WORDS.search(piece):
            continue
        start += len(piece) - len(piece.lstrip())
        end -= len(piece) - len(piece.rstrip())
        if marker := _CALLOUT_MARKER.match(text, start, end):
            start = marker.end()
            if not _WORDS.search(text, start, end):
                continue
        block = any(v_start <= start < v_end for v_start, v_end in verbatim)
        out.append(Sentence(start, end, text[start:end], block))
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans no cut falls strictly inside, as disjoint spans in order (overlapping ones joined; touching ones kept
    apart, since a cut may fall where one ends and the next begins): a position is then looked up, not compared
    with every span (a line of 20,000 links took 97 s CPU to cut)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _parentheses(text: str, prose: list[tuple[int, int]], starts: list[int]) -> list[tuple[int, int]]:
    """Each parenthesis of the text a reader reads that its block closes, as (after "(", at ")"): no sentence ends
    inside one. One left open, or closing none, is read as no parenthesis (a list's "a)"), and a smiley's is none.
    """
    pairs: list[tuple[int, int]] = []
    open_at: list[int] = []
    block = 0
    for start, end in prose:
        for at in range(start, end):
            if text[at] not in "()" or text[at - 1 : at] in (":", ";", "-"):  # a smiley is none
                continue
            if (inside := bisect.bisect_right(starts, at)) != block:
                open_at, block = [], inside
            if text[at] == "(":
                open_at.append(at)
            elif open_at:
                pairs.append((open_at.pop() + 1, at + 1))
    return pairs


def _char_offsets(text: str, byte_length: int) -> list[int]:
    """For each byte offset of ``text`` in UTF-8 (and the end), the character offset it falls in."""
    if byte_length == len(text):
        return list(range(byte_length + 1))
    offsets = [0] * (byte_length + 1)
    position = 0
    for index, char in enumerate(text):
        width = len(char.encode("utf-8"))
        for byte in range(position, position + width):
            offsets[byte] = index
        position += width
    offsets[byte_length] = len(text)
    return offsets
