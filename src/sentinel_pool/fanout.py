"""The pool's side of the fanned-out maintenance pass (``sentinel.maintain.fanout``): the job ledger, whose
epochs fence each execution of an analysis job, reached from synchronous code (a Celery task)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sentinel.redis_client import async_redis_client
from sentinel.settings import Settings
from sentinel_pool.jobs import JobLedger
from sentinel_pool.registry import PoolKeys

T = TypeVar("T")


def with_ledger(settings: Settings, call: Callable[[JobLedger], Awaitable[T]]) -> T:
    """Run one ledger call from synchronous code (a Celery task), on a connection of its own."""

    async def run() -> T:
        redis = async_redis_client(settings.redis_url)
        try:
            return await call(JobLedger(redis, PoolKeys.from_settings(settings), settings.pool.job_ttl_s))
        finally:
            await redis.aclose()  # type: ignore[attr-defined]  # types-redis predates aclose

    return asyncio.run(run())
