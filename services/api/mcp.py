"""``/mcp``: the seven primitives over MCP's Streamable HTTP transport, behind the API's keys.

The caller's key is checked here, before the MCP SDK sees the request; its scope travels to the server's handlers
in a context variable (stateless mode: each request runs in a task started from its own context). A read key is
never shown a write tool, and calling one anyway is refused before anything runs (``sentinel.mcp.server``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar

from fastapi import FastAPI, Request
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from sentinel.keys import Scope as KeyScope
from sentinel.mcp.server import build_server
from sentinel.search.scope import limited_to
from sentinel.tools.context import ToolContext
from services.api.request_log import log_tool_call
from services.common.auth import limits_of, scope_of

PATH = "/mcp"
_caller: ContextVar[KeyScope] = ContextVar("sentinel_mcp_caller")

# Without keys (local-only mode, loopback) a web page could reach the endpoint through DNS rebinding: only
# loopback Host and Origin headers are accepted then. With keys, the key is what guards it.
_LOOPBACK = TransportSecuritySettings(
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


class _KeyedDoor:
    """ASGI endpoint: the MCP session manager with the caller's scope set. Without a known key ``scope_of`` raises,
    before anything is sent, and the app's one translator answers 401 (``services.common.errors``)."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        caller = scope_of(Request(scope))
        token = _caller.set(caller)
        try:
            with limited_to(limits_of(Request(scope))):  # scopes the key never reaches (sentinel.search.scope)
                await self.manager.handle_request(scope, receive, send)
        finally:
            _caller.reset(token)


def mount_mcp(app: FastAPI, ctx: ToolContext) -> AbstractAsyncContextManager[None]:
    """Add ``/mcp`` to ``app``; the returned context runs the session manager and belongs in the app's lifespan."""
    server = build_server(ctx, _caller.get, observe=log_tool_call)
    manager = StreamableHTTPSessionManager(
        app=server,
        json_response=True,
        stateless=True,
        security_settings=_LOOPBACK if app.state.keys is None else None,
    )
    app.router.routes.append(Route(PATH, endpoint=_KeyedDoor(manager), methods=["GET", "POST", "DELETE"]))

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with manager.run():
            yield

    return running()
