"""Sticky conversations: which node holds a conversation's prompt cache, and when its next turn goes back there.

The turns of one conversation share a prefix (the system prompt and the first user message), which the node
that served the last turn still holds in its prompt cache: the next turn goes back there unless that node is
overloaded (full, or more than ``sticky_slack`` requests busier than the least busy candidate), when the cache is
worth less than the wait. The router (``scheduler``) applies it among the candidates with room.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sentinel_pool.routing import Candidate

CONVERSATION_HEADER = "x-sentinel-conversation"
STICKY_REMEMBERED = 4096  # conversations whose node is remembered (the least recently used is forgotten)


def conversation_key(body: dict[str, Any], header: str | None) -> str | None:
    """The conversation a chat request continues: the client's ``x-sentinel-conversation``, else the model and
    the messages up to the first user message (the same in every later turn). None: no messages to go by."""
    if header:
        return "h:" + header[:200]
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    end = next((i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user"), None)
    if end is None:
        return None
    prefix = json.dumps([body.get("model"), messages[: end + 1]], sort_keys=True, default=str)
    return "p:" + hashlib.sha256(prefix.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Taken:
    candidate: Candidate
    sticky: bool  # it went to the node holding its conversation


class Sticky:
    """Which node last served each conversation (the one holding its prompt cache), the least recently used
    forgotten past ``STICKY_REMEMBERED``; and the one rule of when a turn goes back there."""

    def __init__(self, slack: int) -> None:
        self.slack = slack
        self._holders: OrderedDict[str, str] = OrderedDict()
        self.hits = 0

    def pick(self, free: list[Candidate], load: Callable[[Candidate], int], conv: str | None) -> Taken | None:
        """Among ``free`` candidates (best first, each with room), the conversation's own node unless it is more
        than ``slack`` requests busier than the least busy; else the best. None: no candidate."""
        if not free:
            return None
        holder = self._holders.get(conv) if conv else None
        if holder is not None:
            least = min(load(c) for c in free)
            for candidate in free:
                if candidate.node == holder and load(candidate) <= least + self.slack:
                    return Taken(candidate, True)
        return Taken(free[0], False)

    def served(self, conv: str | None, taken: Taken) -> None:
        self.hits += taken.sticky
        if conv is None:
            return
        self._holders[conv] = taken.candidate.node
        self._holders.move_to_end(conv)
        while len(self._holders) > STICKY_REMEMBERED:
            self._holders.popitem(last=False)
