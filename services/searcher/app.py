"""The Searcher service: ``sentinel research`` behind HTTP, for Open WebUI's research tool.

    uvicorn services.searcher.app:app --host 0.0.0.0 --port 8002 --no-access-log

Settings from the environment like every Sentinel service (SENTINEL_VAULT, SENTINEL_INDEX_PATH,
SENTINEL_EMBEDDER_URL, SENTINEL_RESEARCH__*; keys as the tool API takes them). At start it checks its target
(``sentinel.research.target``: the sources folder of a vault Sentinel indexes), its extractors, its embedder and
its search backend's settings, and refuses to start naming what is wrong, rather than writing where nobody reads.

POST /v1/research {"question": "..."} (write-scoped key) -> {"text", "record", "added", "repeated", "not_used"}.
GET /health -> the sources folder it writes into and its backend. One research runs at a time.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel, Field

from sentinel.research.backends import BackendFailed, backend_from_settings
from sentinel.research.run import MAX_QUESTION_CHARS, filter_model, prepare, report_text, research
from sentinel.research.target import ResearchRefused, research_target
from sentinel.settings import Settings
from services.common import errors
from services.common.auth import StartupRefused, key_ring, require_write, scope_of

log = logging.getLogger("sentinel.searcher")


class ResearchIn(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)


class NotUsedOut(BaseModel):
    url: str
    reason: str


class ResearchOut(BaseModel):
    text: str  # what the model is told, starting with a status marker
    record: str
    added: int
    repeated: int
    not_used: list[NotUsedOut]


def create_app(settings: Settings) -> FastAPI:
    """The service on ``settings``."""
    if not log.handlers:
        log.addHandler(logging.StreamHandler(sys.stderr))
        log.setLevel(logging.INFO)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            app.state.sources = research_target(settings)
            app.state.embedder = prepare(settings)
            app.state.backend = backend_from_settings(settings.research)
            app.state.provider = filter_model(settings)
        except (ResearchRefused, BackendFailed) as err:
            log.error("the Searcher will not start: %s", err)
            raise StartupRefused(str(err)) from err
        app.state.keys = key_ring(settings.model_copy(update={"api_host": settings.research.host}))
        app.state.settings = settings
        app.state.lock = threading.Lock()
        log.info("the Searcher writes into %s (backend %s)", app.state.sources, app.state.backend.name)
        yield

    app = FastAPI(title="Sentinel Searcher", lifespan=lifespan)
    errors.install(app)

    @app.get("/health")
    def health(request: Request) -> dict[str, Any]:
        return {"status": "ok", "sources": str(request.app.state.sources), "backend": request.app.state.backend.name}

    @app.post("/v1/research")
    def run_research(body: ResearchIn, request: Request) -> ResearchOut:
        require_write(scope_of(request), "research (it writes a source record)")
        state = request.app.state
        with state.lock:
            report = research(  # a refusal answers 422, a backend or model down 503 (services.common.errors)
                body.question,
                state.settings,
                embedder=state.embedder,
                backend=state.backend,
                provider=state.provider,
            )
        return ResearchOut(
            text=report_text(report),
            record=report.relpath,
            added=report.added,
            repeated=report.repeated,
            not_used=[NotUsedOut(url=u.url, reason=u.reason) for u in report.unusable],
        )

    return app


@cache
def _from_environment() -> FastAPI:
    # This entry's one door to configuration: the settings are read here, once, and passed down.
    return create_app(Settings())


def __getattr__(name: str) -> FastAPI:
    """``uvicorn services.searcher.app:app`` builds the app from the environment on first access, never at import."""
    if name == "app":
        return _from_environment()
    raise AttributeError(name)
