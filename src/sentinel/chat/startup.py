"""What the harness checks before the first question: whether search will run on both halves.

Seed 000's own harness ran on the literal half of search alone, quietly, when no embedder was given. Here every
way search can end up lexical-only is found at the start and said loudly: no embedder configured, an embedder
that does not answer, an index with no vectors, vectors of another model.
"""

from __future__ import annotations

from dataclasses import dataclass

from sentinel.embed.base import EmbedderUnavailable
from sentinel.search import filling
from sentinel.search.embedding import embed_command, identity_record
from sentinel.search.view import current_view
from sentinel.tools.context import ToolContext


@dataclass(frozen=True)
class SearchMode:
    lexical_only: str | None = None  # why only the wording half of search will run (None: both halves)
    partial: str | None = None  # a smaller gap: some text is found by wording only


def search_mode(ctx: ToolContext) -> SearchMode:
    """How search will run over this index with this context's embedder."""
    embedder = ctx.embedder
    if embedder is None:
        return SearchMode(
            "no embedder is configured (pass --embed-model <multilingual-e5-small folder> or set SENTINEL_EMBEDDER_URL)"
        )
    try:
        identity = identity_record(embedder.identity)
    except EmbedderUnavailable as error:
        return SearchMode(f"the configured embedder does not answer ({error})")
    view = current_view(ctx.reader())
    if view.chunks is None and view.summaries is None:
        return SearchMode(f"nothing in the index has been embedded yet (run {embed_command()} first)")
    if view.identity is not None and view.identity != identity:
        return SearchMode(
            f"the index's vectors come from another model than the embedder (run {embed_command(reembed=True)})"
        )
    filled = filling.of_view(view)
    if filled.filling:
        return SearchMode(partial=f"meaning search is still filling: {filled.figures()} ({embed_command()})")
    return SearchMode()
