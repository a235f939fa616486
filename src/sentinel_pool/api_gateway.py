"""The API's gateway, one of two kinds: on Redis (``on_redis``: the registry, the job ledger and the chats in
flight shared with every other gateway process) or in memory (``in_memory``: its own model servers only, one
process, no Redis). The daemon leader makes its own (``daemon``)."""

from __future__ import annotations

from collections.abc import Callable

import aiohttp
from redis.asyncio import Redis as AsyncRedis

from sentinel.settings import Settings
from sentinel_pool.chat_first import ChatActivity
from sentinel_pool.dispatch import Gateway
from sentinel_pool.jobs import JobLedger
from sentinel_pool.ledger_memory import MemoryLedger, memory_snapshot
from sentinel_pool.registry import NodeRecord, PoolKeys, Snapshot, snapshot
from sentinel_pool.repair import Opening
from sentinel_pool.streaming import Observer


def on_redis(
    settings: Settings,
    redis: AsyncRedis,
    session: aiohttp.ClientSession,
    *,
    keys: PoolKeys | None = None,
    observer: Observer | None = None,
    first_call: Opening | None = None,
) -> Gateway:
    """The API's gateway: the registry and the job ledger in Redis, shared with every other gateway process;
    the chats in flight recorded there too, for a maintenance pass to yield to (``chat_first``)."""
    pool, keys = settings.pool, keys or PoolKeys.from_settings(settings)

    async def read() -> Snapshot:
        return await snapshot(redis, keys, pool.secret)

    # A chat a crashed gateway never closed stops counting after the longest a request may stay silent.
    chats = ChatActivity(redis, keys, pool.first_token_timeout_s + pool.read_timeout_s)
    ledger = JobLedger(redis, keys, pool.job_ttl_s)
    return Gateway(pool, session, read=read, ledger=ledger, chats=chats, observer=observer, first_call=first_call)


def in_memory(
    settings: Settings,
    session: aiohttp.ClientSession,
    records: Callable[[], list[NodeRecord]],
    *,
    chats: ChatActivity | None = None,
    observer: Observer | None = None,
    first_call: Opening | None = None,
) -> Gateway:
    """The API's gateway over its own model servers only (``records``: what its agent thread probed), with
    the job ledger in its memory: its routing needs no Redis (one process)."""
    ledger = MemoryLedger(settings.pool.job_ttl_s)

    async def read() -> Snapshot:
        return memory_snapshot(records(), ledger)

    pool = settings.pool.model_copy(update={"registry_refresh_s": 0.0})  # memory: read afresh every time
    return Gateway(pool, session, read=read, ledger=ledger, chats=chats, observer=observer, first_call=first_call)
