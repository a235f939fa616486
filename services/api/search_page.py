"""The search page (``/search``) and the structured search it calls (``POST /v1/search``).

The page is static files in ``services/api/static/`` (no build step, no library): HTML, one script, one style
sheet. ``/v1/search`` answers the three modes of ``sentinel.search.modes`` with hits as data (path, title,
summary line or passage with its heading trail, labels, never a score) behind the same keys as the tools;
a generated concept page's hit carries its provenance (``sentinel.maintain.trace``).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from html import escape
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from sentinel.errors import BadInput
from sentinel.keys import Scope
from sentinel.maintain.trace import GENERATED_BY, trace_page
from sentinel.search.modes import Mode, answer
from sentinel.search.scope import limited_to
from sentinel.search.summaries import page_summaries
from sentinel.tools.arguments import unencodable_argument
from sentinel.tools.context import ToolContext
from sentinel.vault.plain import plain_text
from services.common.auth import limits_of, scope_of

STATIC = Path(__file__).with_name("static")
PAGE_HITS = 10  # a screen's worth: the tools' five (search_hits) left most of it empty
OPENSEARCH = """<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>Sentinel</ShortName>
  <Description>Search the vault {vault}</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Image type="image/svg+xml">{base}/favicon.ico</Image>
  <Url type="text/html" method="get" template="{base}/search?q={{searchTerms}}"/>
</OpenSearchDescription>
"""


class SearchRequest(BaseModel):
    query: str = Field(description="What was typed, without the mode's prefix ('?' is the page's, not the API's).")
    mode: Mode = Field("semantic", description="quick: names and aliases; facet: key:value filters; semantic.")
    rung: Literal["summary", "body"] = "summary"
    cursor: int = Field(0, ge=0, description="next_cursor of the previous answer")


def _provenance(ctx: ToolContext, paths: list[str]) -> dict[str, dict[str, Any]]:
    """Sources, quoted sentences and the trace state of the generated pages among ``paths``."""
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    rows = ctx.reader().execute(
        f"""SELECT path, frontmatter FROM pages
            WHERE path IN ({marks}) AND json_extract(frontmatter, '$.generated_by') = ?""",
        [*paths, GENERATED_BY],
    )
    found: dict[str, dict[str, Any]] = {}
    for path, frontmatter in rows:
        if not (ctx.settings.vault / path).is_file():
            continue  # removed since it was indexed: the watcher drops it within seconds
        sources = json.loads(frontmatter).get("sources") or []
        trace = trace_page(ctx.settings, path)
        found[path] = {
            "sources": [str(s) for s in sources] if isinstance(sources, list) else [],
            "quotes": [asdict(q) for q in trace.quotes],
            "trace": ("broken" if trace.broken else "intact") + (" (edited after generation)" if trace.edited else ""),
        }
    return found


def _for_a_screen(ctx: ToolContext, hits: list[dict[str, Any]]) -> None:
    """What a person reads differs from what a model is given: the whole summary, not the tools' ten-word line
    (their token budget), and a passage as the text Obsidian shows, not its markdown."""
    summed = [h["path"] for h in hits if h["rung"] == "summary"]
    marks = ",".join("?" * len(summed))
    full = {s.path: s.summary.text for s in page_summaries(ctx.reader(), f"p.path IN ({marks})", summed)}
    for hit in hits:
        if hit["rung"] == "summary":
            hit["text"] = full.get(hit["path"], hit["text"])
        else:
            hit["text"] = plain_text(hit["text"])


def search_router() -> APIRouter:
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/search")

    @router.get("/search", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "search.html", media_type="text/html")

    @router.get("/search/opensearch.xml", include_in_schema=False)
    def opensearch(request: Request) -> Response:
        """The page as a browser search engine (``?q=`` is read by the page). No key needed: it names no page."""
        base = str(request.base_url).rstrip("/")
        vault = request.app.state.ctx.settings.vault.name
        body = OPENSEARCH.format(base=escape(base), vault=escape(vault))
        return Response(body, media_type="application/opensearchdescription+xml")

    @router.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @router.get("/v1/search/access")
    def access(scope: Scope = Depends(scope_of)) -> dict[str, str]:
        """Whether the caller's key (or local-only mode) may search: the page asks for a key on a 401."""
        return {"scope": scope.value}

    @router.post("/v1/search")
    def structured_search(request: Request, body: SearchRequest, _: Scope = Depends(scope_of)) -> dict[str, Any]:
        """The search page's search: one mode's hits as data, in rank order, with no score."""
        ctx: ToolContext = request.app.state.ctx
        if problem := unencodable_argument(body.model_dump()):
            raise BadInput(problem)
        with limited_to(limits_of(request)):  # bad input answers 400 (services.common.errors)
            found = answer(
                ctx.reader(), ctx.settings, ctx.embedder, body.mode, body.query, body.rung, body.cursor, PAGE_HITS
            )
        data = found.as_dict()
        data.pop("legs_used")
        _for_a_screen(ctx, data["hits"])  # type: ignore[arg-type]
        provenance = _provenance(ctx, [h.path for h in found.hits])
        for hit in data["hits"]:  # type: ignore[attr-defined]
            hit.pop("legs")
            if hit["path"] in provenance:
                hit["provenance"] = provenance[hit["path"]]
        return {**data, "mode": body.mode, "vault": ctx.settings.vault.name}

    return router


def mount_search_page(app: Any) -> None:
    app.include_router(search_router())
    app.mount("/search/static", StaticFiles(directory=STATIC), name="search-static")
