"""FastAPI shell over ``sentinel.tools``: routing, auth, logs. No decisions are made here."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from pydantic import BaseModel, Field

from sentinel import __version__
from sentinel.embed.factory import embedder_from_settings
from sentinel.index.queries import stats
from sentinel.index.sync import sync
from sentinel.keys import Scope
from sentinel.logs import configure_logging
from sentinel.paths import index_path
from sentinel.search.view import current_view
from sentinel.settings import Settings
from sentinel.tools.capture import capture
from sentinel.tools.context import ToolContext
from sentinel.tools.registry import ARGUMENTS, TOOLS, call_tool
from services.api.auth import key_ring, require_write, scope_of
from services.api.pool import pool_router
from services.api.request_log import RequestLog, log_tool_call

log = logging.getLogger("sentinel.api")


class ToolText(BaseModel):
    text: str = Field(description="Status-marked text, as the model should see it.")


class Message(BaseModel):
    role: str
    content: Any = ""


class CaptureRequest(BaseModel):
    chat_id: str
    messages: list[Message]
    subject: str
    content: str = ""


def _tool_route(app: FastAPI, name: str) -> None:
    tool = TOOLS[name]
    model = ARGUMENTS[name]

    def run(request: Request, arguments: BaseModel, scope: Scope = Depends(scope_of)) -> ToolText:
        if tool.writes:
            require_write(scope, name)
        turn, given, started = request.headers.get("x-sentinel-turn", ""), arguments.model_dump(), time.perf_counter()
        text = call_tool(request.app.state.ctx, name, given, turn)
        log_tool_call(name, given, text, time.perf_counter() - started)
        return ToolText(text=text)

    # each tool's own argument model, so the OpenAPI schema and 422 errors describe that tool exactly
    run.__annotations__ = {
        **run.__annotations__,
        "arguments": model,
        "request": Request,
        "scope": Scope,
        "return": ToolText,
    }

    app.post(f"/v1/tools/{name}", response_model=ToolText, summary=tool.description, name=name)(run)


def sync_now(ctx: ToolContext) -> None:
    """Bring the index in line with the vault through the one writer (edits made in Obsidian, other tools)."""
    with ctx.write_lock:
        report = sync(ctx.settings, ctx.writer())
    if report.added or report.updated or report.removed or report.refused:
        log.info("sync", extra=report.as_dict())
    # load the search view now, not inside the next query's time budget
    current_view(ctx.reader())


def _keep_synced(ctx: ToolContext, stop: threading.Event) -> None:
    while not stop.wait(ctx.settings.sync_interval_s):
        try:
            sync_now(ctx)
        except Exception:
            log.exception("sync failed; retrying at the next interval")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    configure_logging("api")
    keys = key_ring(settings)
    ctx = ToolContext(settings=settings, embedder=embedder_from_settings(settings))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        sync_now(ctx)  # the index reflects the vault before the first request
        stop = threading.Event()
        if settings.sync_interval_s > 0:
            threading.Thread(target=_keep_synced, args=(ctx, stop), daemon=True, name="sync").start()
        yield
        stop.set()

    app = FastAPI(title="Sentinel tool API", version=__version__, lifespan=lifespan)
    app.state.keys = keys
    app.state.ctx = ctx

    app.add_middleware(RequestLog)

    @app.get("/health")
    def health() -> dict[str, Any]:
        ctx: ToolContext = app.state.ctx
        return {
            "status": "ok",
            "version": __version__,
            "index": str(index_path(settings)),
            "pages": stats(ctx.reader())["pages"],
            "embedder": ctx.embedder.identity.name if ctx.embedder else None,
        }

    for name in TOOLS:
        _tool_route(app, name)

    @app.post("/v1/maintain", status_code=202)
    def maintain_route(minutes: float | None = None, scope: Scope = Depends(scope_of)) -> dict[str, object]:
        """Queue a maintenance pass now. 202 means queued, not done: a worker takes it when one is free."""
        require_write(scope, "maintain")
        from services.worker.trigger import trigger_maintenance  # the worker's Celery app, built on first use

        return trigger_maintenance(minutes)

    @app.post("/v1/capture", response_model=ToolText)
    def capture_route(body: CaptureRequest, scope: Scope = Depends(scope_of)) -> ToolText:
        require_write(scope, "capture")
        messages, started = [m.model_dump() for m in body.messages], time.perf_counter()
        text = capture(app.state.ctx, body.chat_id, messages, body.subject, body.content).render()
        log_tool_call("save", {"subject": body.subject}, text, time.perf_counter() - started)
        return ToolText(text=text)

    app.include_router(pool_router(settings))
    return app


def __getattr__(name: str) -> FastAPI:
    """``uvicorn services.api.app:app`` builds the app from the environment on first access."""
    if name == "app":
        return create_app()
    raise AttributeError(name)
