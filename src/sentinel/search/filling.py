"""How far each search leg has filled, for a person waiting on a big vault.

The lexical leg is whole as soon as a page is indexed; the meaning legs fill as vectors are embedded (the live
watcher's edits first, then the backlog by the maintenance pass or ``sentinel embed``). A page counts for a
meaning leg only once all it contributes there has a vector: every chunk of it for the chunk leg, its summary
passage for the summary leg (summary-rung pages only). The figures come from the search view, which holds
exactly what a search ranks, so they say what a query made now can find; the health route, the CLI and the
note on a search result all read them here.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sentinel.search.view import SearchView, current_view, loaded_view


@dataclass(frozen=True)
class Leg:
    name: str
    done: int  # pages this leg can find by meaning
    total: int  # pages it will find once filled

    @property
    def complete(self) -> bool:
        return self.done >= self.total

    def percent(self) -> int:
        """Rounded down, so a leg short of one page never reads 100."""
        return 100 if self.total == 0 else self.done * 100 // self.total

    def as_dict(self) -> dict[str, object]:
        return {"pages_done": self.done, "pages": self.total, "complete": self.complete}


@dataclass(frozen=True)
class Filling:
    pages: int  # every indexed page: all of them are in the lexical leg
    chunks: Leg  # pages whose every chunk has a vector, of the pages that have chunks
    summaries: Leg  # summary-rung pages whose summary passage has a vector
    chunk_vectors: int  # chunks with a vector (a finer count for the chunk leg)
    chunk_total: int
    waiting: tuple[str, ...]  # the most recently indexed pages still waiting for a chunk vector

    @property
    def legs(self) -> tuple[Leg, Leg]:
        return (self.chunks, self.summaries)

    @property
    def filling(self) -> list[Leg]:
        """The meaning legs not yet whole."""
        return [leg for leg in self.legs if not leg.complete]

    def figures(self) -> str:
        """e.g. "chunks 40 of 100 pages (40%), summaries 70 of 70 pages (100%)"."""
        return ", ".join(f"{leg.name} {leg.done:,} of {leg.total:,} pages ({leg.percent()}%)" for leg in self.legs)

    def as_dict(self) -> dict[str, object]:
        return {
            "lexical": {"pages_done": self.pages, "pages": self.pages, "complete": True},
            "chunks": {**self.chunks.as_dict(), "chunks_done": self.chunk_vectors, "chunks": self.chunk_total},
            "summaries": self.summaries.as_dict(),
            "filling": [leg.name for leg in self.filling],
        }


def of_view(view: SearchView) -> Filling:
    pages = view.rows.pages
    with_chunks = pages.with_chunks
    named, _ = view.pages_pending_vectors()
    return Filling(
        pages=len(pages),
        chunks=Leg("chunks", with_chunks - len(pages.pending), with_chunks),
        summaries=Leg("summaries", len(view.rows.summaries), view.page_count),
        chunk_vectors=view.embedded_chunks,
        chunk_total=view.chunk_count,
        waiting=tuple(named),
    )


def of_index(db: sqlite3.Connection) -> Filling:
    """The index's figures now (the search view is loaded if this process has none yet)."""
    return of_view(current_view(db))


def as_loaded(db: sqlite3.Connection) -> Filling | None:
    """The figures of the view this process already holds (None before its first load): a health check must not
    wait for a whole view to load, which takes seconds on a big vault straight after a re-embed."""
    view = loaded_view(db)
    return None if view is None else of_view(view)
