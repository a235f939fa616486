"""The kinds of failure the product knows, one base for all of them; every door translates them in one place.

A module's own exception subclasses one kind (and keeps the builtin it always had, so an ``except ValueError``
written before still holds). What a kind becomes is each door's one decision: HTTP's status
(``services/common/errors.py``), MCP's error result (``sentinel.mcp.server``), the CLI's exit code
(``sentinel.cli.main``). Failures no kind names are bugs, and each door lets them show as such.
"""

from __future__ import annotations


class SentinelError(Exception):
    """A failure the caller can be told about in words."""


class BadInput(SentinelError):
    """The request itself is wrong (an argument, a filter, a setting): the caller can fix it."""


class NotFound(SentinelError):
    """What was named does not exist (a page, a node, a pass, the vault)."""


class Refused(SentinelError):
    """A gate or a policy refused it: asking again the same way gets the same answer."""


class Unavailable(SentinelError):
    """Something it needs is down or not there now (a model server, the embedder, the index, Redis)."""


class Conflict(SentinelError):
    """The state is not the one the request assumed (a pass runs already, the page changed, nothing to queue)."""


KINDS: tuple[type[SentinelError], ...] = (BadInput, NotFound, Refused, Unavailable, Conflict)

# HTTP's status for each kind, one table for both HTTP doors: the services' translator (``services/common/errors.py``)
# and the pool daemon's (``sentinel_pool.daemon_routes.pool_errors``), which may not import a service.
HTTP_STATUS: dict[type[SentinelError], int] = {
    BadInput: 400,
    NotFound: 404,
    Conflict: 409,
    Refused: 422,  # understood, and refused by a gate or a policy
    Unavailable: 503,
}


# How a door that speaks words (MCP, the CLI) names each kind before the error's own words.
LABELS: dict[type[SentinelError], str] = {
    BadInput: "bad input",
    NotFound: "not found",
    Refused: "refused",
    Unavailable: "unavailable",
    Conflict: "conflict",
}


def described(error: SentinelError) -> str:
    """``<kind>: <the error's words>``."""
    kind = kind_of(error)
    return f"{LABELS[kind]}: {error}" if kind is not None else str(error)


def kind_of(error: BaseException) -> type[SentinelError] | None:
    """The kind ``error`` is, or None when it is none of them (a bug, or a builtin nobody classified)."""
    return next((kind for kind in KINDS if isinstance(error, kind)), None)
