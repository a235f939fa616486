"""The job ledger: every assignment of a job to a node carries an epoch, and Redis checks it atomically.

A job's record (a Redis hash) holds its epoch, attempt count, state, node and whether it is idempotent. Each
assignment bumps the epoch. Whoever acts on an assignment (sends it to a node, marks its first output, finishes
it) does so through a compare-and-set on the epoch, so a dispatcher that was superseded (paused, partitioned,
presumed dead while another took the job over) is refused before it can send the job a second time. That is
fencing with Redis as the referee, not an election.

Re-running rules, checked by the same scripts:
- once output has reached the client (``streaming``) or the job is ``done``, it is never assigned again;
- a job that is not idempotent is never assigned again once it was sent to a node (the node may have run it);
  a failure that proves the node never got it (``unsent``: connection refused) does not count as a run;
- at most ``max_attempts`` assignments in all.

States: assigned -> sent -> streaming -> done; sent/assigned -> unsent | lost; streaming -> broken.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis as AsyncRedis

from sentinel_pool.registry import PoolKeys


class StaleEpoch(RuntimeError):
    """A newer assignment of the job exists: the holder of this one must not act on it."""


class NotReassignable(RuntimeError):
    """The job may not be assigned again (done, output delivered, not idempotent, attempts spent)."""


@dataclass(frozen=True)
class Assignment:
    job: str
    epoch: int
    attempt: int
    node: str
    url: str


# KEYS: job hash, in-flight set of the new backend. ARGV: node, url, owner, idempotent (1/0), max attempts,
# record ttl (s), in-flight deadline, initial state, job id, key prefix.
_ASSIGN = """
local job = KEYS[1]
local state = redis.call('HGET', job, 'state')
if state == 'done' then return {0, 'the job is done'} end
if state == 'streaming' or state == 'broken' then
  return {0, 'its output already reached the client: a job is not re-run once it has'}
end
local idempotent = redis.call('HGET', job, 'idempotent')
if not idempotent then
  idempotent = ARGV[4]
  redis.call('HSET', job, 'idempotent', idempotent)
end
if idempotent == '0' and (state == 'sent' or state == 'lost') then
  return {0, 'it is not idempotent and was already sent to a node: never re-run'}
end
local attempts = tonumber(redis.call('HGET', job, 'attempts') or '0')
if attempts >= tonumber(ARGV[5]) then return {0, 'all ' .. attempts .. ' attempts are spent'} end
local previous = redis.call('HMGET', job, 'node', 'url')
if previous[1] then redis.call('ZREM', ARGV[10] .. 'active:' .. previous[1] .. ':' .. previous[2], ARGV[9]) end
local epoch = redis.call('HINCRBY', job, 'epoch', 1)
redis.call('HSET', job, 'attempts', attempts + 1, 'node', ARGV[1], 'url', ARGV[2], 'owner', ARGV[3],
  'state', ARGV[8], 'changed', ARGV[7])
redis.call('EXPIRE', job, ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[7], ARGV[9])
return {epoch, attempts + 1}
"""

# KEYS: job hash, in-flight set of its backend. ARGV: epoch, new state, allowed current states (",a,b,"),
# record ttl (s), job id, leave the in-flight set (1/0).
_MOVE = """
local job = KEYS[1]
local current = redis.call('HMGET', job, 'epoch', 'state')
if current[1] ~= ARGV[1] then return {0, 'epoch ' .. (current[1] or 'none') .. ' is current'} end
if not string.find(ARGV[3], ',' .. current[2] .. ',', 1, true) then return {0, 'state is ' .. current[2]} end
redis.call('HSET', job, 'state', ARGV[2])
redis.call('EXPIRE', job, ARGV[4])
if ARGV[6] == '1' then redis.call('ZREM', KEYS[2], ARGV[5]) end
return {1, current[2]}
"""


class JobLedger:
    def __init__(self, redis: AsyncRedis, keys: PoolKeys, ttl_s: int) -> None:
        self.redis, self._keys, self._ttl = redis, keys, ttl_s
        self._assign = redis.register_script(_ASSIGN)
        self._move = redis.register_script(_MOVE)

    async def assign(
        self,
        job: str,
        node: str,
        url: str,
        *,
        owner: str,
        idempotent: bool = True,
        max_attempts: int = 3,
        send: bool = False,
    ) -> Assignment:
        """A new epoch of ``job`` on ``node``/``url``. ``send=True`` also takes the send step in the same atomic
        call (a dispatcher that sends at once needs no separate fence). Raises ``NotReassignable``."""
        deadline = time.time() + self._ttl
        initial = "sent" if send else "assigned"
        args: list[str | int | float] = [
            node,
            url,
            owner,
            int(idempotent),
            max_attempts,
            self._ttl,
            deadline,
            initial,
            job,
            self._keys.prefix,
        ]
        result: list[Any] = await self._assign(keys=[self._keys.job(job), self._keys.active(node, url)], args=args)
        epoch, detail = result
        if not epoch:
            raise NotReassignable(f"job {job} cannot be assigned again: {_text(detail)}")
        return Assignment(job, int(epoch), int(detail), node, url)

    async def _to(self, a: Assignment, state: str, allowed: tuple[str, ...], leave: bool) -> tuple[bool, str]:
        keys = [self._keys.job(a.job), self._keys.active(a.node, a.url)]
        args: list[str | int | float] = [a.epoch, state, "," + ",".join(allowed) + ",", self._ttl, a.job, int(leave)]
        moved, detail = await self._move(keys=keys, args=args)
        return bool(moved), _text(detail)

    async def send(self, a: Assignment) -> None:
        """The fence, right before the job goes to the node: raises ``StaleEpoch`` if it was superseded."""
        moved, detail = await self._to(a, "sent", ("assigned",), leave=False)
        if not moved:
            raise StaleEpoch(f"job {a.job} epoch {a.epoch} may not be sent: {detail}")

    async def streaming(self, a: Assignment) -> None:
        """Output is about to reach the client: from now on the job is never re-run. ``StaleEpoch`` if
        superseded (then nothing may be delivered)."""
        moved, detail = await self._to(a, "streaming", ("sent",), leave=False)
        if not moved:
            raise StaleEpoch(f"job {a.job} epoch {a.epoch} may not deliver output: {detail}")

    async def done(self, a: Assignment) -> bool:
        """Finished with a result. False when a newer epoch owns the job (its result is not this one)."""
        return (await self._to(a, "done", ("sent", "streaming"), leave=True))[0]

    async def failed(self, a: Assignment, *, reached_node: bool) -> bool:
        """Failed before output: ``lost`` if the node may have run it, ``unsent`` if it provably never got it."""
        state = "lost" if reached_node else "unsent"
        return (await self._to(a, state, ("assigned", "sent"), leave=True))[0]

    async def broken(self, a: Assignment) -> bool:
        """Failed after output reached the client: terminal, never re-run."""
        return (await self._to(a, "broken", ("streaming",), leave=True))[0]

    async def record(self, job: str) -> dict[str, str]:
        """The job's record as Redis holds it (empty when unknown or expired)."""
        raw: dict[str, str] = await self.redis.hgetall(self._keys.job(job))
        return raw


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
