"""Chat comes first: the gateway records the chat requests in flight on each model server, and a maintenance
pass that shares that server waits between pages until it has been free of chat for a while
(``sentinel.maintain.chat_wait``, reading this record through the core's ``ServingRecord``).

The record lives in Redis, beside the pool's registry, so every gateway replica and every worker sees the same
truth: per model server, a sorted set of the requests in flight (scored by when each lapses, so one a crashed
gateway never closed stops counting by itself) and the time the last chat started or ended.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING

from sentinel.redis_client import redis_client
from sentinel.serving import RecordUnavailable, ServerState, server_key
from sentinel.settings import Settings

if TYPE_CHECKING:  # Redis' client comes with an extra; a pass run without it has no chats to see
    from redis import Redis
    from redis.asyncio import Redis as AsyncRedis

    from sentinel_pool.registry import PoolKeys

log = logging.getLogger("sentinel.pool.chat_first")


class ChatActivity:
    """The gateway's side: one entry per chat request while it is in flight on a server. Redis down costs the
    pass its view of the chats (said in the log), never the chat itself."""

    def __init__(self, redis: AsyncRedis, keys: PoolKeys, lapse_s: float) -> None:
        self.redis, self.keys, self.lapse_s = redis, keys, lapse_s

    async def started(self, url: str) -> str:
        """The chat's entry ('' when it could not be recorded)."""
        from redis.exceptions import RedisError

        entry, server, now = uuid.uuid4().hex, server_key(url), time.time()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self.keys.chats(server), {entry: now + self.lapse_s})
                pipe.set(self.keys.last_chat(server), now)
                await pipe.execute()
        except (RedisError, OSError) as error:
            log.warning("chat not recorded: a maintenance pass cannot see it", extra={"error": str(error)})
            return ""
        return entry

    async def ended(self, url: str, entry: str) -> None:
        from redis.exceptions import RedisError

        if not entry:
            return
        server = server_key(url)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zrem(self.keys.chats(server), entry)
                pipe.set(self.keys.last_chat(server), time.time())
                await pipe.execute()
        except (RedisError, OSError) as error:  # its entry lapses by itself after lapse_s
            log.warning("chat end not recorded", extra={"error": str(error)})


def server_state(redis: Redis, keys: PoolKeys, server: str, now: float | None = None) -> ServerState:
    now = time.time() if now is None else now
    in_flight = int(redis.zcount(keys.chats(server), now, "+inf"))
    last = redis.get(keys.last_chat(server))
    return ServerState(in_flight, None if last is None else max(0.0, now - float(last)))


class RedisServingRecord:
    """The pool's ``ServingRecord``: the chat record above and the free VRAM node agents publish, in Redis."""

    def __init__(self, settings: Settings) -> None:
        from sentinel_pool.registry import PoolKeys

        self.keys, self.where = PoolKeys.from_settings(settings), settings.redis_url
        self.redis = redis_client(settings.redis_url, timeout_s=5, connect_timeout_s=2)

    def chat_state(self, server: str, now: float | None = None) -> ServerState:
        from redis.exceptions import RedisError

        try:
            return server_state(self.redis, self.keys, server, now)
        except RedisError as error:
            raise RecordUnavailable(f"the chat record in Redis ({self.where}) cannot be read: {error}") from error

    def free_vram_mb(self, server_url: str) -> int | None:
        from sentinel_pool.registry import NodeRecord

        for node in sorted(self.redis.smembers(self.keys.nodes)):
            raw = self.redis.get(self.keys.node(node))
            if raw is None:
                continue
            record = NodeRecord.model_validate_json(raw)
            if any(server_key(b.url) == server_key(server_url) for b in record.backends):
                return record.vram_free_mb
        return None


def serving_record(settings: Settings) -> RedisServingRecord | None:
    """The record a maintenance pass reads; None when Redis' client is not installed (no gateway, no chats)."""
    try:
        return RedisServingRecord(settings)
    except ImportError:
        return None
