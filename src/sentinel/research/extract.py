"""A fetched page's main text: trafilatura for HTML (boilerplate, menus and footers left out), pypdf for PDF,
plain text as it is. Both libraries are the optional ``research`` extra.

The text returned is the "fetched text" the verbatim gate checks passages against: every passage of a record
is a piece of it, and every piece of it is the page's own words.
"""

from __future__ import annotations

import importlib.util
import io
import time
from dataclasses import dataclass

from sentinel.research.fetch import Fetched, PageUnusable


@dataclass(frozen=True)
class Extracted:
    title: str
    text: str  # paragraphs separated by newlines
    seconds: float


def missing_extractors() -> str:
    """Why pages cannot be extracted here (the ``research`` extra is not installed), or "" when they can."""
    missing = [name for name in ("trafilatura", "pypdf") if importlib.util.find_spec(name) is None]
    return f"research needs {' and '.join(missing)}: pip install 'sentinel[research]'" if missing else ""


def _html(page: Fetched) -> tuple[str, str]:
    import trafilatura

    found = trafilatura.bare_extraction(
        page.body, url=page.url, with_metadata=True, include_comments=False, include_tables=True
    )
    if found is None or isinstance(found, dict):
        return "", ""
    return str(found.title or ""), str(found.text or "")


def _pdf(page: Fetched) -> tuple[str, str]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(page.body))
        # A PDF's lines are wrapped lines, not paragraphs: each page's text becomes one paragraph, which the
        # passage splitter cuts at sentence ends.
        texts = [" ".join((piece.extract_text() or "").split()) for piece in reader.pages]
        title = str(reader.metadata.title or "") if reader.metadata else ""
    except (PdfReadError, ValueError, KeyError) as err:
        raise PageUnusable(f"not text (the PDF cannot be read: {type(err).__name__})") from err
    return title, "\n".join(texts)


def _decoded(page: Fetched) -> str:
    try:
        return page.body.decode(page.charset or "utf-8", errors="replace")
    except LookupError:  # a charset name Python does not know
        return page.body.decode("utf-8", errors="replace")


def extract(page: Fetched, min_chars: int) -> Extracted:
    """The page's title and main text, or ``PageUnusable`` (no text, too short)."""
    started = time.perf_counter()
    if page.content_type == "application/pdf":
        title, text = _pdf(page)
    elif page.content_type == "text/plain":
        title, text = "", _decoded(page)
    else:
        title, text = _html(page)
    text = text.replace("\x00", "").strip()
    if not text:
        raise PageUnusable("no main text found")
    if len(text) < min_chars:
        raise PageUnusable(f"too short ({len(text)} characters of text; at least {min_chars} are needed)")
    return Extracted(title.strip(), text, time.perf_counter() - started)
