"""Chat comes first: the gateway records the chat requests in flight on each model server, and a maintenance
pass that shares that server waits between pages until it has been free of chat for a while.

The record lives in Redis, beside the pool's registry, so every gateway replica and every worker sees the same
truth: per model server, a sorted set of the requests in flight (scored by when each lapses, so one a crashed
gateway never closed stops counting by itself) and the time the last chat started or ended.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sentinel.settings import Settings

if TYPE_CHECKING:  # Redis' client comes with an extra; a pass run without it has no chats to see
    from redis import Redis
    from redis.asyncio import Redis as AsyncRedis

    from sentinel.pool.registry import PoolKeys

log = logging.getLogger("sentinel.pool.chat_first")

POLL_S = 1.0


def server_key(url: str) -> str:
    """One name per model server, however a client spells its URL (Ollama's root or an OpenAI base up to /v1)."""
    return url.strip().rstrip("/").removesuffix("/v1").rstrip("/").lower()


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


@dataclass(frozen=True)
class ServerState:
    in_flight: int
    idle_s: float | None  # seconds since the last chat started or ended; None: none was ever seen


def server_state(redis: Redis, keys: PoolKeys, server: str, now: float | None = None) -> ServerState:
    now = time.time() if now is None else now
    in_flight = int(redis.zcount(keys.chats(server), now, "+inf"))
    last = redis.get(keys.last_chat(server))
    return ServerState(in_flight, None if last is None else max(0.0, now - float(last)))


def chat_waiter(
    settings: Settings, say: Callable[[str], None], sleep: Callable[[float], None] = time.sleep
) -> Callable[[], None]:
    """A function the pass calls between pages: it returns at once while no chat uses the pass's model servers,
    and otherwise waits (saying so once) until they have had no chat for ``maintain_chat_idle_s``. Without a
    reachable Redis it says so once and never waits: there is no chat to see."""
    try:
        from redis import Redis
        from redis.exceptions import RedisError

        from sentinel.pool.registry import PoolKeys
    except ImportError:
        return lambda: None  # installed without the api/worker extras: no gateway, so no chat through it
    keys = PoolKeys.from_settings(settings)
    servers = sorted({server_key(role.base_url) for role in (settings.extraction, settings.summary)})
    idle_needed = settings.maintain_chat_idle_s
    redis = Redis.from_url(settings.redis_url, decode_responses=True, socket_timeout=5, socket_connect_timeout=2)
    blind = False

    def busy() -> tuple[str, str] | None:
        for server in servers:
            state = server_state(redis, keys, server)
            if state.in_flight:
                return server, f"{state.in_flight} chat request(s) in flight"
            if state.idle_s is not None and state.idle_s < idle_needed:
                return server, f"a chat {state.idle_s:.0f} s ago"
        return None

    def wait() -> None:
        nonlocal blind
        if blind or idle_needed <= 0:
            return
        paused_at: float | None = None
        while True:
            try:
                why = busy()
            except RedisError as error:
                blind = True
                say(f"  note: cannot see chats ({error}); this pass does not yield the model to them")
                return
            if why is None:
                break
            if paused_at is None:
                paused_at = time.monotonic()
                server, reason = why
                say(
                    f"  paused: chat comes first ({reason} on {server}); resumes {idle_needed:.0f} s after the last one"
                )
                log.info("pass paused for chat", extra={"server": server, "reason": reason})
            sleep(POLL_S)
        if paused_at is not None:
            waited = time.monotonic() - paused_at
            say(f"  resumed: the model server was free of chat for {idle_needed:.0f} s (paused {waited:.0f} s)")

    return wait
