"""What a failure talking to a node says: the node's (fail over to the next one) or the request's own (the
client's answer, passed through), and whether the node can have received the request at all (a job that
may have run is not sent again unless it is idempotent)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from sentinel_pool.errors import BackendRefused
from sentinel_pool.streaming import NodeFailed

# Statuses that say "this node, not this request": try another one.
NODE_STATUSES = {404, 408, 429}
# The node never got the request: connection refused or not established in time.
NOT_REACHED = (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)


def failure(error: BaseException) -> NodeFailed:
    """Connection refused or not made in time: the node never got the request. Anything later: it may have."""
    return NodeFailed(f"{type(error).__name__}: {error}".rstrip(": "), reached=not isinstance(error, NOT_REACHED))


def check_status(status: int, text: str) -> None:
    """Nothing under 400; a 5xx or a status of the node's own (``NODE_STATUSES``) fails over; any other 4xx is the
    request's fault: the client's answer (``BackendRefused``)."""
    if status < 400:
        return
    if status >= 500 or status in NODE_STATUSES:
        raise NodeFailed(f"HTTP {status}: {text[:300]}", reached=True)
    try:
        payload: Any = json.loads(text)
    except json.JSONDecodeError:
        payload = text
    raise BackendRefused(status, payload)
