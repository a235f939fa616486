"""HTTP's one translation of the product's failures (``sentinel.errors``): every service installs it, and a route
raises what the core raised instead of choosing a status itself (datasette's ``handle_exception`` shape)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from sentinel.errors import BadInput, Conflict, NotFound, Refused, SentinelError, Unavailable, kind_of

STATUS: dict[type[SentinelError], int] = {
    BadInput: 400,
    NotFound: 404,
    Conflict: 409,
    Refused: 422,  # understood, and refused by a gate or a policy
    Unavailable: 503,
}


def status_of(error: SentinelError) -> int:
    kind = kind_of(error)
    return STATUS[kind] if kind is not None else 500


async def handle_exception(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, SentinelError)  # registered for SentinelError only
    return JSONResponse({"detail": str(error)}, status_code=status_of(error))


def install(app: FastAPI) -> None:
    """Answer every ``SentinelError`` a route lets through with its kind's status and its words."""
    app.add_exception_handler(SentinelError, handle_exception)
