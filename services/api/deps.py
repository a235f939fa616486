"""What a route may ask for, read from ``app.state`` (set once by ``create_app``): the tool context, the settings
and the caller's scope. Routes declare these as ``Annotated`` parameters instead of closing over the app."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from sentinel.keys import Scope
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from services.common.auth import scope_of


def tool_context(request: Request) -> ToolContext:
    context: ToolContext = request.app.state.ctx
    return context


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


Context = Annotated[ToolContext, Depends(tool_context)]
AppSettings = Annotated[Settings, Depends(settings_of)]
CallerScope = Annotated[Scope, Depends(scope_of)]
