"""Who leads: the seed's modified Bully election, where the best hardware wins and terms only grow.

Every daemon knows its live peers from their signed hellos (``daemon``), each with its hardware: free VRAM
(rounded to GiB, so a few MiB of drift does not flip the order), whether it has a GPU, and its node name as the
stable tie break (the lowest name wins a tie). The rule each daemon applies on every heartbeat:

- the best live daemon that does not lead claims leadership with a term one above the highest it has seen (a
  better daemon joining bullies a worse leader, as in Bully);
- a claim (carried by every hello) is accepted only with a higher term than the one held, or the same term from
  a better daemon (two daemons that claimed the same term at once: the better one keeps it);
- a leader that has not been heard from for ``ttl_s`` is dead: the best of those left claims the next term.

So a term never goes back, a leader is always the best daemon some majority of hellos has seen, and a stale
leader learns of its successor from the first hello it gets back. Pure logic, no I/O: tested directly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Hardware:
    node: str
    vram_free_mb: int | None
    gpu: str  # "" when none is known

    def rank(self) -> tuple[int, int, tuple[int, ...]]:
        """Bigger is better: free VRAM in GiB, then having a GPU, then the lower node name."""
        gib = (self.vram_free_mb or 0) // 1024
        return gib, int(bool(self.gpu)), tuple(-ord(c) for c in self.node)

    def better_than(self, other: Hardware) -> bool:
        return self.rank() > other.rank()


@dataclass(frozen=True)
class Claim:
    """Who leads, as one daemon believes it: leader node, its advertised URL, the term, since when (epoch s)."""

    leader: str
    url: str
    term: int
    since: float

    def as_dict(self) -> dict[str, Any]:
        return {"leader": self.leader, "url": self.url, "term": self.term, "since": self.since}


@dataclass
class Election:
    me: Hardware
    url: str
    claim: Claim | None = None
    highest_term: int = 0
    changes: list[Claim] = field(default_factory=list)  # every leader this daemon accepted, in order

    @property
    def leading(self) -> bool:
        return self.claim is not None and self.claim.leader == self.me.node

    def _accept(self, claim: Claim) -> bool:
        self.highest_term = max(self.highest_term, claim.term)
        if self.claim == claim or (self.claim and (self.claim.leader, self.claim.term) == (claim.leader, claim.term)):
            return False
        self.claim = claim
        self.changes.append(claim)
        return True

    def heard(self, claim: Claim | None, known: dict[str, Hardware]) -> bool:
        """A peer's hello said who it believes leads (``known``: every peer's hardware). True when this daemon now
        follows a different leader."""
        if claim is None:
            return False
        self.highest_term = max(self.highest_term, claim.term)
        mine = self.claim
        if mine is None or claim.term > mine.term:
            return self._accept(claim)
        if claim.term == mine.term and claim.leader != mine.leader:
            everyone = known | {self.me.node: self.me}
            theirs, current = everyone.get(claim.leader), everyone.get(mine.leader)
            if theirs is not None and (current is None or theirs.better_than(current)):
                return self._accept(claim)
        return False

    def step(self, live: dict[str, Hardware]) -> bool:
        """Apply the rule to the peers heard from within ``ttl_s`` (not including this daemon). True when this
        daemon just claimed leadership: it is the best live daemon and does not lead yet (no leader, a dead one,
        or a worse one)."""
        best = max([self.me, *live.values()], key=Hardware.rank)
        if best.node != self.me.node or self.leading:
            return False
        return self._accept(Claim(self.me.node, self.url, self.highest_term + 1, time.time()))
