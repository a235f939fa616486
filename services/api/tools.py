"""The tool routes, one per tool in ``sentinel.tools.registry``: ``POST /v1/tools/<name>`` with that tool's own
argument model, so the OpenAPI schema and 422 errors describe each tool exactly, in the folder names the settings
give (``Folders.in_text``, as the MCP server and the chat's tool schemas say them)."""

from __future__ import annotations

import logging
import time

from fastapi import APIRouter, FastAPI, Request
from pydantic import BaseModel

from sentinel.maintain.schedule import record_first_chat
from sentinel.search.scope import limited_to
from sentinel.settings import Folders
from sentinel.tools.context import ToolContext
from sentinel.tools.faults import IndexFailure
from sentinel.tools.registry import ARGUMENTS, TOOLS, run_tool
from services.api.deps import CallerScope, Context
from services.api.request_log import log_tool_call
from services.api.schemas import ToolText
from services.common.auth import limits_of, require_write

log = logging.getLogger("sentinel.api")


def router_for(folders: Folders) -> APIRouter:
    """Every tool's route, its summary naming the folders as ``folders`` names them."""
    router = APIRouter(tags=["tools"])
    for name in TOOLS:
        _route(router, name, folders)
    return router


def _route(router: APIRouter, name: str, folders: Folders) -> None:
    tool = TOOLS[name]

    def run(request: Request, arguments: BaseModel, ctx: Context, scope: CallerScope) -> ToolText:
        if tool.writes:
            require_write(scope, name)
        turn, given, started = request.headers.get("x-sentinel-turn", ""), arguments.model_dump(), time.perf_counter()
        chat = request.headers.get("x-sentinel-chat", "") or turn.partition("/")[0]
        with limited_to(limits_of(request)):  # scopes the key never reaches (sentinel.search.scope)
            output = run_tool(ctx, name, given, turn, chat)
        log_tool_call(name, given, output.text, time.perf_counter() - started, output.pages)
        _first_chat(request.app, ctx)
        return ToolText(text=output.text)

    run.__annotations__ = {**run.__annotations__, "arguments": ARGUMENTS[name]}
    summary = folders.in_text(tool.description)
    router.post(f"/v1/tools/{name}", response_model=ToolText, summary=summary, name=name)(run)


def _first_chat(app: FastAPI, ctx: ToolContext) -> None:
    """The first tool call starts the nightly schedule (a new install runs no pass before it is used)."""
    if getattr(app.state, "chatted", False):
        return
    try:
        with ctx.write_lock:
            record_first_chat(ctx.writer())
    except IndexFailure as err:  # bookkeeping: a read or search never fails because the index cannot be written
        log.warning("the first chat could not be recorded yet (%s); trying again at the next call", err)
        return
    app.state.chatted = True
