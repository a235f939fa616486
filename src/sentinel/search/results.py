"""What a search returns: hits in rank order, the notes a reader must see, and which legs answered.

No score, similarity or bm25 value is ever part of a result: only the order carries information (every
similarity this model produces falls in a narrow band, wrong answers included).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Rung = Literal["summary", "body"]
RUNGS: tuple[Rung, ...] = ("summary", "body")

# Labels a hit can carry (shown in brackets before the hit).
EXACT = "exact"  # the query named this page: its path, title or an alias
SEEDLING = "seedling"  # status: seedling: a draft; ranked down
LOW_CONFIDENCE = "low-conf"  # confidence: low; ranked down
EXCERPT = "excerpt"  # the summary line is the page's first sentences: it has no summary yet
GRAPH = "graph"  # brought up by the link graph (Personalized PageRank), not by the query's words or meaning

# Legs: the retrieval paths a hit can come from.
LEG_EXACT = "exact"
LEG_LEXICAL = "lexical"
LEG_CHUNKS = "semantic-chunks"
LEG_SUMMARIES = "semantic-summaries"
LEG_GRAPH = "pagerank"


@dataclass(frozen=True)
class Hit:
    """One line of a result: a page (summary rung) or a verbatim chunk of one (body rung)."""

    path: str
    title: str
    rung: str  # "exact", "summary" or "body"
    text: str  # summary rung: the line shown of the page's summary; body rung: the chunk, verbatim
    heading: str = ""  # body rung: the chunk's innermost heading ("" before the first heading)
    trail: str = ""  # body rung: "Title > H1 > H2"
    summary_source: str = ""  # frontmatter | analysis | lead | title: where the summary line came from
    labels: tuple[str, ...] = ()
    legs: tuple[str, ...] = ()  # which legs ranked it
    name: str = ""  # the shortest link target that reaches this page and no other (``read`` takes it)
    date: str = ""  # the page's date (frontmatter, title, else the file's), ISO: travels with every passage
    also_in: tuple[str, ...] = ()  # languages the same page is also written in (its translation family)
    copies: tuple[str, ...] = ()  # paths of those translations (``read`` takes them; all_languages lists them)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class SearchResult:
    query: str
    rung: Rung
    hits: list[Hit]
    notes: list[str] = field(default_factory=list)  # things the reader must know, e.g. "wording only"
    legs_used: list[str] = field(default_factory=list)
    cursor: int = 0  # position of the first hit in the whole ranking
    next_cursor: int | None = None  # where the next page starts; None: this was the last

    @property
    def has_more(self) -> bool:
        return self.next_cursor is not None

    def as_dict(self) -> dict[str, object]:
        return {
            "query": self.query,
            "rung": self.rung,
            "hits": [h.as_dict() for h in self.hits],
            "notes": list(self.notes),
            "legs_used": list(self.legs_used),
            "cursor": self.cursor,
            "next_cursor": self.next_cursor,
        }
