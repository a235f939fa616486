"""HTTP's one translation of the product's failures (``sentinel.errors``): every service installs it, and a route
raises what the core raised instead of choosing a status itself (datasette's ``handle_exception`` shape)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from sentinel.errors import HTTP_STATUS, Refused, SentinelError, kind_of
from sentinel.keys import KeyUnknown, NotPermitted

STATUS = HTTP_STATUS  # one table for every HTTP door (the pool daemon reads it too)

# The refusals HTTP names more closely than 422: who the caller is (401) and what a known caller may reach (403).
REFUSALS: dict[type[Refused], int] = {KeyUnknown: 401, NotPermitted: 403}

# RFC 9110: a 401 names the scheme that would be accepted.
CHALLENGE = {"WWW-Authenticate": "Bearer"}


def status_of(error: SentinelError) -> int:
    refusal = next((status for refused, status in REFUSALS.items() if isinstance(error, refused)), None)
    if refusal is not None:
        return refusal
    kind = kind_of(error)
    return STATUS[kind] if kind is not None else 500


async def handle_exception(_: Request, error: Exception) -> JSONResponse:
    """The one answer a failure gets: its status, its words as ``detail``, and the challenge on a 401."""
    assert isinstance(error, SentinelError)  # registered for SentinelError only
    headers = CHALLENGE if isinstance(error, KeyUnknown) else None
    return JSONResponse({"detail": str(error)}, status_code=status_of(error), headers=headers)


def install(app: FastAPI) -> None:
    """Answer every ``SentinelError`` a route lets through with its kind's status and its words."""
    app.add_exception_handler(SentinelError, handle_exception)
