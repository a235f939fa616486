"""The pool's registry in Redis: which nodes are up, what their backends serve, how busy they are.

Each node agent writes its record under its own key with a TTL and rewrites it every heartbeat. A node that
stops heartbeating (crashed, asleep, unplugged) simply expires: nobody has to notice it or vote on it. A set
indexes the node keys so that a reader needs one round trip: a Lua script returns every live record with the
number of jobs in flight on each backend, and drops index entries whose record has expired.

Jobs in flight are sorted sets (member: job id, score: a deadline), one per backend, written by the job ledger
(``jobs``) as it assigns and finishes jobs; the deadline makes the entry of a gateway that died mid-job lapse
instead of counting forever. A hash without TTL remembers every node ever seen, with its wake-on-LAN MAC, so
a node that is asleep (and so out of the pool) can still be woken.

Records are signed (HMAC-SHA256 with the pool secret, ``SENTINEL_POOL__SECRET``, the same on every agent and
gateway) and a reader drops any record whose signature does not verify: whoever can write to Redis cannot make
the pool send prompts to a node of their own (a hand-written "200 GB VRAM" record got the next prompt). Without
a secret, only records this process wrote itself are believed (a one-machine stack's in-process agent): every
other agent's record is refused, with a log line saying to set the secret on both sides.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, field_validator
from redis import Redis
from redis.asyncio import Redis as AsyncRedis

from sentinel.settings import PoolSettings, Settings

log = logging.getLogger("sentinel.pool.registry")
# Signs what this process publishes when no pool secret is set: believed by this process only.
_PROCESS_KEY = secrets.token_hex(32)
_refused: set[str] = set()  # nodes whose unverifiable records were already logged (once each, not per read)

NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
MAC = re.compile(r"^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$")

BackendKind = str  # a kind registered in sentinel.providers.servers


def check_node_name(name: str) -> str:
    """A node name is part of Redis keys and URLs: letters, digits, '.', '_', '-'; 1-63 characters."""
    if not NODE_NAME.match(name):
        raise ValueError(
            f"node name {name!r} is not usable: use 1-63 letters, digits, '.', '_' or '-', starting with a letter "
            "or digit (set SENTINEL_POOL__NODE or --node)"
        )
    return name


def check_mac(mac: str) -> str:
    """A wake-on-LAN MAC address as six hex pairs (aa:bb:cc:dd:ee:ff); empty means none."""
    if mac and not MAC.match(mac):
        raise ValueError(f"MAC address {mac!r} is not six hex pairs like aa:bb:cc:dd:ee:ff (SENTINEL_POOL__MAC)")
    return mac.lower().replace("-", ":")


class BackendRecord(BaseModel):
    """One model server on a node, as its agent last saw it."""

    url: str = Field(description="OpenAI-compatible base, up to /v1: where the gateway sends requests.")
    kind: BackendKind
    models: list[str] = Field(default_factory=list, description="Models it can serve.")
    loaded: list[str] = Field(default_factory=list, description="Of those, the ones in memory now.")
    slots: int | None = Field(None, description="Requests it serves at once, where the server says.")
    problem: str = Field("", description="Why the last probe failed; a backend with a problem gets no requests.")


class NodeRecord(BaseModel):
    """What a node agent registers on each heartbeat."""

    node: str
    mac: str = ""
    vram_free_mb: int | None = None
    vram_total_mb: int | None = None
    backends: list[BackendRecord] = Field(default_factory=list)
    seen_at: float = Field(default_factory=time.time)
    agent: str = Field("", description="host:pid of the agent process that wrote this record.")
    signature: str = Field("", description="HMAC-SHA256 of the rest of the record with the pool secret.")

    @field_validator("node")
    @classmethod
    def _usable_name(cls, value: str) -> str:
        return check_node_name(value)

    @field_validator("mac")
    @classmethod
    def _usable_mac(cls, value: str) -> str:
        return check_mac(value)


class KnownNode(BaseModel):
    """A node the pool has seen at least once, kept after it leaves so that it can be woken."""

    node: str
    mac: str = ""
    last_seen: float


@dataclass(frozen=True)
class PoolKeys:
    """Names of every Redis key the pool writes, all under one prefix (tests use their own)."""

    prefix: str

    @classmethod
    def from_settings(cls, settings: Settings) -> PoolKeys:
        return cls(f"{settings.redis_prefix}pool:")

    @property
    def nodes(self) -> str:
        return f"{self.prefix}nodes"

    @property
    def known(self) -> str:
        return f"{self.prefix}known"

    def node(self, name: str) -> str:
        return f"{self.prefix}node:{name}"

    def active(self, node: str, url: str) -> str:
        return f"{self.prefix}active:{node}:{url}"

    def job(self, job_id: str) -> str:
        return f"{self.prefix}job:{job_id}"

    def chats(self, server: str) -> str:
        """Chat requests in flight on one model server (``chat_first.server_key``): id -> when it lapses."""
        return f"{self.prefix}chats:{server}"

    def last_chat(self, server: str) -> str:
        """When a chat request last started or ended on one model server (epoch seconds)."""
        return f"{self.prefix}last-chat:{server}"


@dataclass(frozen=True)
class Snapshot:
    """The live pool at one instant: node records and jobs in flight per (node, backend url)."""

    nodes: list[NodeRecord] = field(default_factory=list)
    active: dict[tuple[str, str], int] = field(default_factory=dict)

    def node(self, name: str) -> NodeRecord | None:
        return next((record for record in self.nodes if record.node == name), None)

    def active_on(self, node: str) -> int:
        return sum(count for (name, _), count in self.active.items() if name == node)


# KEYS[1]: the node index set. ARGV[1]: the key prefix, ARGV[2]: now (seconds).
_SNAPSHOT = """
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local raw = redis.call('GET', ARGV[1] .. 'node:' .. id)
  if raw then
    local active = {}
    for i, backend in ipairs(cjson.decode(raw)['backends']) do
      local key = ARGV[1] .. 'active:' .. id .. ':' .. backend['url']
      redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
      active[i] = redis.call('ZCARD', key)
    end
    out[#out + 1] = {raw, active}
  else
    redis.call('SREM', KEYS[1], id)
  end
end
return out
"""


def _signature(record: NodeRecord, secret: str) -> str:
    payload = record.model_dump_json(exclude={"signature"}).encode()
    return hmac.new((secret or _PROCESS_KEY).encode(), payload, hashlib.sha256).hexdigest()


def signed(record: NodeRecord, secret: str) -> NodeRecord:
    """``record`` signed with the pool ``secret`` (empty: this process's own key)."""
    return record.model_copy(update={"signature": _signature(record, secret)})


def authentic(record: NodeRecord, secret: str) -> bool:
    if hmac.compare_digest(record.signature, _signature(record, secret)):
        return True
    if record.node not in _refused:
        _refused.add(record.node)
        log.warning(
            "registry record refused",
            extra={
                "node": record.node,
                "reason": "its signature does not verify: set the same SENTINEL_POOL__SECRET on its agent and on "
                "every gateway (or someone else wrote it to Redis)",
            },
        )
    return False


async def snapshot(redis: AsyncRedis, keys: PoolKeys, secret: str = "") -> Snapshot:
    """Every live node whose record is signed with ``secret`` (``signed``), with its jobs in flight, in one round
    trip, sorted by node name. A record that is not valid JSON of a node is refused like an unsigned one."""
    rows: list[Any] = await redis.eval(_SNAPSHOT, 1, keys.nodes, keys.prefix, time.time())
    nodes: list[NodeRecord] = []
    active: dict[tuple[str, str], int] = {}
    for raw, counts in rows:
        try:
            record = NodeRecord.model_validate_json(raw)
        except ValueError:
            continue
        if not authentic(record, secret):
            continue
        nodes.append(record)
        for backend, count in zip(record.backends, counts, strict=True):
            active[(record.node, backend.url)] = int(count)
    nodes.sort(key=lambda record: record.node)
    return Snapshot(nodes, active)


def publish(redis: Redis, keys: PoolKeys, record: NodeRecord, ttl_s: float, secret: str = "") -> None:
    """One heartbeat: (re)write the node's record, signed with ``secret``, with its TTL, index it, and remember it
    for waking."""
    known = KnownNode(node=record.node, mac=record.mac, last_seen=record.seen_at)
    with redis.pipeline(transaction=True) as pipe:
        pipe.set(keys.node(record.node), signed(record, secret).model_dump_json(), px=int(ttl_s * 1000))
        pipe.sadd(keys.nodes, record.node)
        pipe.hset(keys.known, record.node, known.model_dump_json())
        pipe.execute()


def withdraw(redis: Redis, keys: PoolKeys, node: str) -> None:
    """A node leaving on purpose (agent stopped): out of the pool now rather than at TTL expiry."""
    with redis.pipeline(transaction=True) as pipe:
        pipe.delete(keys.node(node))
        pipe.srem(keys.nodes, node)
        pipe.execute()


async def known_nodes(redis: AsyncRedis, keys: PoolKeys) -> dict[str, KnownNode]:
    """Every node ever registered (live or not), by name."""
    raw: dict[str, str] = await redis.hgetall(keys.known)
    return {name: KnownNode.model_validate(json.loads(value)) for name, value in sorted(raw.items())}


def routes_in_memory(pool: PoolSettings) -> bool:
    """Whether the API's gateway keeps the pool in its memory (its own backends, no Redis on the routing path)
    or reads every agent's records from Redis (``PoolSettings.registry``)."""
    return pool.registry == "memory" or (pool.registry == "auto" and bool(pool.backends))
