"""FastAPI shell over ``sentinel.tools``: routing, auth, logs. No decisions are made here."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, Field

from sentinel import __version__
from sentinel.embed.factory import embedder_from_settings
from sentinel.index.queries import stats
from sentinel.index.watch import VaultWatcher, freshen
from sentinel.keys import Scope
from sentinel.logs import configure_logging
from sentinel.maintain.schedule import record_first_chat
from sentinel.paths import index_path
from sentinel.settings import Settings
from sentinel.tools.capture import capture
from sentinel.tools.context import ToolContext
from sentinel.tools.registry import ARGUMENTS, TOOLS, run_tool
from services.api.auth import key_ring, require_write, scope_of
from services.api.mcp import mount_mcp
from services.api.pool import pool_router
from services.api.request_log import RequestLog, log_tool_call
from services.api.search_page import mount_search_page

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
        output = run_tool(request.app.state.ctx, name, given, turn)
        text = output.text
        log_tool_call(name, given, text, time.perf_counter() - started, output.pages)
        _first_chat(request.app)
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


def _first_chat(app: FastAPI) -> None:
    """The first tool call starts the nightly schedule (a new install runs no pass before it is used)."""
    if getattr(app.state, "chatted", False):
        return
    ctx: ToolContext = app.state.ctx
    with ctx.write_lock:
        record_first_chat(ctx.writer())
    app.state.chatted = True


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    configure_logging("api")
    keys = key_ring(settings)
    ctx = ToolContext(settings=settings, embedder=embedder_from_settings(settings))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        started = freshen(ctx, embed=False)  # the index reflects the vault before the first request
        watcher = VaultWatcher(ctx)  # then every edit, within seconds (sentinel.index.watch)
        watcher.start(backlog=started.report.changed_paths)
        async with mcp_running:
            yield
        watcher.stop()

    app = FastAPI(title="Sentinel tool API", version=__version__, lifespan=lifespan)
    app.state.keys = keys
    app.state.ctx = ctx
    mcp_running = mount_mcp(app, ctx)

    app.add_middleware(RequestLog)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, err: RequestValidationError) -> Response:
        """422 naming each bad field; ASCII-escaped, because the echoed input may hold a lone surrogate that
        UTF-8 cannot carry (the default handler answered 500 to ``{"rung": "\\ud800"}``)."""
        body = json.dumps({"detail": jsonable_encoder(err.errors())}, ensure_ascii=True)
        return Response(body, status_code=422, media_type="application/json")

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
    mount_search_page(app)
    return app


def __getattr__(name: str) -> FastAPI:
    """``uvicorn services.api.app:app`` builds the app from the environment on first access."""
    if name == "app":
        return create_app()
    raise AttributeError(name)
