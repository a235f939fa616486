"""The one way a Redis client is made: on the settings' URL, with timeouts its caller names for what it waits on.

Redis comes with the api and worker extras, so it is imported here only when a client is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from redis import Redis
    from redis.asyncio import Redis as AsyncRedis

# A caller that names no timeouts waits as long as a command may take on a loaded machine, and no longer.
TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 2.0


def redis_client(
    url: str, *, timeout_s: float | None = TIMEOUT_S, connect_timeout_s: float | None = CONNECT_TIMEOUT_S
) -> Redis[str]:
    """A client on ``url`` (``Settings.redis_url``) that decodes replies; a timeout of None waits as long as it
    takes."""
    from redis import Redis

    return Redis.from_url(
        url, decode_responses=True, socket_timeout=timeout_s, socket_connect_timeout=connect_timeout_s
    )


def redis_bytes_client(url: str, *, timeout_s: float | None, connect_timeout_s: float | None) -> Redis[bytes]:
    """A client that leaves replies as bytes (the maintenance lock compares the raw token it wrote)."""
    from redis import Redis

    return Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=connect_timeout_s)


def async_redis_client(url: str, *, max_connections: int | None = None, wait_s: float = 5) -> AsyncRedis[str]:
    """An asyncio client on ``url`` that decodes replies, for the gateway and the job ledger.

    With ``max_connections`` its connections are bounded: a burst waits up to ``wait_s`` for one of them instead
    of opening one per request (each a descriptor and an ephemeral port; with descriptors short, that was a plain
    500 in the middle of a burst)."""
    from redis.asyncio import BlockingConnectionPool
    from redis.asyncio import Redis as AsyncRedis

    if max_connections is None:
        return AsyncRedis.from_url(url, decode_responses=True)
    connections: BlockingConnectionPool = BlockingConnectionPool.from_url(
        url, decode_responses=True, max_connections=max_connections, timeout=wait_s
    )
    # the pool's connections decode; ``decode_responses`` here only says so to the type checker
    return AsyncRedis(connection_pool=connections, decode_responses=True)
