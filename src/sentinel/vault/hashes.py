"""Every change-detection hash, named by what it tells apart: one SHA-256 each, over a different view of a page.

A hash here answers "is this still what it was?" for one decision, and the view it hashes is that decision's:
links count for the write guard (they change the page) but not for the index's content hash (a link retargeted by
a move is not new content). Values are stored (the index, frontmatter, pass ledgers) and compared across versions,
so a function's view never changes without a migration of what it was stored in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from sentinel.vault.links import text_without_link_markup

EDIT_HASH_CHARS = 12  # enough to tell versions apart; short enough to cost the model few tokens


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(text: str) -> str:
    """What a page says, not its link markup: the index's hash of a page, which the analysis queue and edit
    detection compare (a move that only rewrites links re-analyses nothing)."""
    return _sha256(text_without_link_markup(text).encode())


def edit_hash(page: bytes | str) -> str:
    """The edit hash the model is shown and gives back to write: of the page's exact bytes, shortened (see
    ``gates.stale_write`` for why it is not the link-blind content hash)."""
    data = page.encode("utf-8") if isinstance(page, str) else page
    return _sha256(data)[:EDIT_HASH_CHARS]


def unreadable_page_hash(data: bytes) -> str:
    """A ``.md`` file the index skips (binary data): its bytes, so the sync sees when it changes."""
    return _sha256(data)


def chunk_hash(text: str) -> str:
    """A chunk's text: equal texts share one vector (the embedding is reused, not recomputed)."""
    return _sha256(text.encode())


def passage_digest(passage: str) -> bytes:
    """A page's summary passage, to find the stored vector of that text by without holding either text (a search
    view at 1M pages: ``sentinel.search.view_rows``): 128 bits of BLAKE2b, a chance match of two passages ~1e-26
    at 1M pages. Not stored: compared only within one read of the index."""
    return hashlib.blake2b(passage.encode(), digest_size=16).digest()


def written_hash(text: str) -> str:
    """A page as a maintenance pass wrote it (the ledger's ``after_sha256``): undo reverts only a page nobody
    changed since."""
    return _sha256(text.encode())


def source_hash(text: str) -> str:
    """A source as it was when a generated page quoted it (the quote's ``source_sha256``): the trace says when
    the source changed since."""
    return _sha256(text.encode())


def body_hash(body: str) -> str:
    """A generated page's body as the pass wrote it (``body_sha256``), outer whitespace aside: the trace tells a
    hand edit from the pass's own text."""
    return _sha256(body.strip().encode())


def mentions_fingerprint(mentions: Iterable[tuple[str, str]]) -> str:
    """The (source, paragraph) pairs a concept was checked against: a concept is checked again only when they
    changed."""
    digest = hashlib.sha256()
    for source, paragraph in mentions:
        digest.update(f"{source}\0{paragraph}\0".encode())
    return digest.hexdigest()
