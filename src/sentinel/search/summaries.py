"""The one line the summary rung shows for a page, and where it came from.

In order: the frontmatter ``description``/``summary`` (the user's own words), else the analysis pass's
summary while it is current (``analysis.hash == pages.hash``), else the page's lead: its first sentences,
up to ``LEAD_WORDS`` words, labelled as an excerpt so nobody mistakes it for a summary. A page with no
text at all is represented by its title. Pages thus take part in the summary rung before the maintenance
pass has run, and get better lines once it has.

The whole summary is embedded, with the title before it and the page's headings after it (``passage``): the
headings say what else the page covers, where a question about its third section is answered (measured on
the whole eval vault: the summary leg's nDCG@10 .433 -> .545 public, .651 -> .709 held out). The rung
shows its ``line``: the first sentence, at most ``LINE_WORDS`` words
and ``LINE_CHARS`` characters, a cut marked with an ellipsis (five hits should cost about 120 tokens; the
page itself is one ``read`` away).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from sentinel.vault.entries import ENTRY_UNIT
from sentinel.vault.links import text_without_link_markup

LEAD_WORDS = 40
LINE_WORDS = 10
LINE_CHARS = 80  # also bounds a CJK sentence, which has no spaces to count words by
SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")
FIRST_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")  # CJK sentences end without a space
MARKDOWN_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
MARKUP = re.compile(r"(^|\s)(?:[>#|*+-]+|\d+\.|\[![\w-]+\][+-]?)(?=\s)|<[^>]+>|!?\[\[|\]\]", re.MULTILINE)
EMPHASIS = re.compile(r"[*_`~]+")


class SummarySource(StrEnum):
    FRONTMATTER = "frontmatter"
    ANALYSIS = "analysis"
    LEAD = "lead"
    TITLE = "title"


@dataclass(frozen=True)
class Summary:
    text: str
    source: SummarySource


def lead(markdown: str) -> str:
    """The first sentences of a chunk as plain text: whole sentences while they fit in ``LEAD_WORDS``
    words; a first sentence longer than that is cut at the limit and ends with an ellipsis."""
    visible = MARKDOWN_LINK.sub(lambda m: m.group(1), text_without_link_markup(markdown))
    plain = " ".join(EMPHASIS.sub("", MARKUP.sub(" ", visible)).split())
    taken: list[str] = []
    count = 0
    for sentence in SENTENCE_END.split(plain):
        words = sentence.split()
        if count + len(words) > LEAD_WORDS:
            if not taken:
                return " ".join(words[:LEAD_WORDS]) + " …"
            break
        taken.append(sentence)
        count += len(words)
    return " ".join(taken)


def line(summary: str) -> str:
    """What the summary rung shows of a summary: its first sentence, cut (with " …") to the limits."""
    first = FIRST_SENTENCE_END.split(summary.strip(), maxsplit=1)[0]
    words = first.split()
    shown = " ".join(words[:LINE_WORDS])
    if len(shown) > LINE_CHARS:
        shown = shown[:LINE_CHARS].rsplit(" ", 1)[0] if " " in shown[:LINE_CHARS] else shown[:LINE_CHARS]
    return shown if shown == summary.strip() else shown.removesuffix(" …").rstrip(" ,;:") + " …"


def has_own_summary(description: str, analysis_summary: str) -> bool:
    """Whether ``choose`` takes a summary the page has (frontmatter or analysis), not an excerpt or its title."""
    return bool(description.strip() or analysis_summary.strip())


def choose(title: str, description: str, analysis_summary: str, first_chunk: str) -> Summary:
    """Pick a page's summary line from what the index knows about it."""
    if description.strip():
        return Summary(" ".join(description.split()), SummarySource.FRONTMATTER)
    if analysis_summary.strip():
        return Summary(" ".join(analysis_summary.split()), SummarySource.ANALYSIS)
    excerpt = lead(first_chunk)
    if excerpt:
        return Summary(excerpt, SummarySource.LEAD)
    return Summary(title, SummarySource.TITLE)


HEADING_SEPARATOR = "; "


def passage(title: str, summary: Summary, headings: Sequence[str] = ()) -> str:
    """What is embedded for a page's summary vector: its title, its summary and its headings in order."""
    head = title if summary.source is SummarySource.TITLE else f"{title}\n\n{summary.text}"
    return f"{head}\n\n{HEADING_SEPARATOR.join(headings)}" if headings else head


@dataclass(frozen=True)
class PageSummary:
    page_id: int  # pages.rowid
    path: str
    title: str
    role: str
    summary: Summary
    headings: tuple[str, ...] = ()

    @property
    def passage(self) -> str:
        return passage(self.title, self.summary, self.headings)


SUMMARY_ROWS = """
    SELECT p.rowid AS page_id, p.path, p.title, p.role, p.description,
           COALESCE((SELECT a.summary FROM analysis a
                     WHERE a.path = p.path AND a.hash = p.hash AND a.status = 'ok'), '') AS analysis_summary,
           COALESCE((SELECT c.text FROM chunks c WHERE c.path = p.path ORDER BY c.ordinal LIMIT 1), '') AS first_chunk,
           COALESCE((SELECT json_group_array(h.text) FROM (SELECT text FROM headings h WHERE h.path = p.path
                                                         ORDER BY h.ordinal) h), '[]') AS headings
    FROM pages p
"""


def page_summaries(db: sqlite3.Connection, where: str = "1", params: Sequence[object] = ()) -> list[PageSummary]:
    """Summary lines of the pages matching ``where`` (a condition over ``pages p``)."""
    return list(each_page_summary(db, where, params))


def each_page_summary(db: sqlite3.Connection, where: str = "1", params: Sequence[object] = ()) -> Iterator[PageSummary]:
    """``page_summaries`` one page at a time, for a reader that keeps only what it derives from each (a search
    view at 1M pages: ``sentinel.search.view_rows``)."""
    for r in db.execute(f"{SUMMARY_ROWS} WHERE {where}", tuple(params)):
        yield PageSummary(
            int(r["page_id"]),
            r["path"],
            r["title"],
            r["role"],
            choose(r["title"], r["description"], r["analysis_summary"], r["first_chunk"]),
            tuple(h for h in json.loads(r["headings"]) if h),
        )


def excerpts_of_entries(db: sqlite3.Connection, paths: Sequence[str]) -> set[str]:
    """Those of ``paths`` whose summary vector stands for a few entries, not for the page: no summary of their
    own (``has_own_summary`` is false) and a first unit that is one entry of a run (``chunks.kind``; a chat
    log's first turns). A prose page's excerpt is its opening sentences, which say what the page is about, so
    it is not one of them: the rule had damped every page without a description, that is every page of the
    help vault, whose strongest leg is this one (docs/retrieval.md)."""
    if not paths:
        return set()
    marks = ",".join("?" * len(paths))
    # the first unit's kind is the WHERE, so the analysis is looked up only for the pages it leaves (0.3 ms CPU a
    # query at 10k synthetic pages; docs/retrieval.md, "Stop 55, h55e")
    rows = db.execute(
        f"""SELECT p.path, p.description, COALESCE((SELECT a.summary FROM analysis a
               WHERE a.path = p.path AND a.hash = p.hash AND a.status = 'ok'), '')
            FROM pages p WHERE p.path IN ({marks})
              AND (SELECT c.kind FROM chunks c WHERE c.path = p.path ORDER BY c.ordinal LIMIT 1) = ?""",
        [*paths, ENTRY_UNIT],
    ).fetchall()
    return {str(path) for path, described, analysed in rows if not has_own_summary(described or "", analysed or "")}
