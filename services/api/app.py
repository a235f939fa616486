"""FastAPI shell over ``sentinel.tools``: routing, auth, logs. No decisions are made here."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response

from sentinel import __version__
from sentinel.embed.factory import embedder_from_settings
from sentinel.index.watch import VaultWatcher, freshen
from sentinel.logs import RequestLog, configure_logging
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from services.api import admin, ask, embed_run, tools
from services.api.mcp import mount_mcp
from services.api.pool import install_pool_errors, pool_router
from services.api.search_page import mount_search_page
from services.common import errors
from services.common.auth import key_ring


def create_app(settings: Settings) -> FastAPI:
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
        ctx.close()

    app = FastAPI(title="Sentinel tool API", version=__version__, lifespan=lifespan)
    app.state.keys = keys
    app.state.settings = settings
    app.state.ctx = ctx
    app.state.embed_runs = embed_run.EmbedRuns(ctx)
    mcp_running = mount_mcp(app, ctx)

    app.add_middleware(RequestLog, logger="sentinel.api")
    errors.install(app)
    install_pool_errors(app)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, err: RequestValidationError) -> Response:
        """422 naming each bad field; ASCII-escaped, because the echoed input may hold a lone surrogate that
        UTF-8 cannot carry (the default handler answered 500 to ``{"rung": "\\ud800"}``)."""
        body = json.dumps({"detail": jsonable_encoder(err.errors())}, ensure_ascii=True)
        return Response(body, status_code=422, media_type="application/json")

    app.include_router(admin.router)
    app.include_router(embed_run.router)
    app.include_router(tools.router_for(settings.folders))
    app.include_router(ask.router)
    app.include_router(pool_router(settings))
    mount_search_page(app)
    return app


@cache
def _from_environment() -> FastAPI:
    # This entry's one door to configuration (``python -m services.api`` is the other entry): the settings are
    # read here, once, and everything below takes them as a parameter.
    return create_app(Settings())


def __getattr__(name: str) -> FastAPI:
    """``uvicorn services.api.app:app`` builds the app from the environment on first access."""
    if name == "app":
        return _from_environment()
    raise AttributeError(name)
