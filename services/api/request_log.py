"""One log line per tool call saying what it did (the line per request is ``sentinel.logs.RequestLog``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from sentinel.tools.policy import Status

log = logging.getLogger("sentinel.api")

# Arguments that name a page, and pages a result names (search hits, the note a save wrote): the first few.
_PAGE_ARGUMENTS = ("path", "source", "destination")
_PAGE_IN_TEXT = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[^\n/]*?\.md\b")
_MAX_PAGES = 5
_MARKERS = sorted((status.value for status in Status), key=len, reverse=True)


def log_tool_call(
    name: str, arguments: dict[str, Any], text: str, seconds: float, pages_found: Sequence[str] = ()
) -> None:
    """One line per tool call: the tool, its status marker, the page(s) it touched or found, how long it took."""
    marker = next((m for m in _MARKERS if text.startswith(m)), "")
    named = [str(arguments[key]) for key in _PAGE_ARGUMENTS if arguments.get(key)]
    found = [page.strip() for page in _PAGE_IN_TEXT.findall(text)]
    pages = list(dict.fromkeys(named + list(pages_found) + [page for page in found if page]))[:_MAX_PAGES]
    log.info("tool", extra={"tool": name, "marker": marker, "pages": pages, "ms": round(seconds * 1e3, 1)})
