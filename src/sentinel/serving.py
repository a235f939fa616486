"""What the core asks of whoever serves its models, and the one spelling of a model server's address.

The maintenance pass yields to chats and looks for room beside the conversation model; both facts are kept by
the model pool (``sentinel_pool``), which implements ``ServingRecord``. The core never imports the pool: a door
(the CLI, the worker) builds the pool's record and hands it down, and without one the pass sees no chats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sentinel.errors import Unavailable

# The header a caller marks work nobody waits on with (a pass's own calls, the start's warm-up): the gateway does
# not count it as a chat that a maintenance pass yields to.
BACKGROUND_HEADER = "x-sentinel-background"


def root_url(url: str) -> str:
    """A model server's root, however a client spells it: Ollama's root, or an OpenAI base up to ``/v1``."""
    return url.strip().rstrip("/").removesuffix("/v1").rstrip("/")


def server_key(url: str) -> str:
    """One name per model server (its root, case folded): what records about a server are keyed by."""
    return root_url(url).lower()


@dataclass(frozen=True)
class ServerState:
    in_flight: int
    idle_s: float | None  # seconds since the last chat started or ended; None: none was ever seen


class RecordUnavailable(Unavailable, ConnectionError):
    """The record of the model servers cannot be read now (its store is down)."""


class ServingRecord(Protocol):
    """The facts about model servers that the pool keeps and the maintenance pass reads."""

    def chat_state(self, server: str, now: float | None = None) -> ServerState:
        """Chats in flight on ``server`` (a ``server_key``) and how long it has been free of them; raises
        ``RecordUnavailable``."""
        ...

    def free_vram_mb(self, server_url: str) -> int | None:
        """Free VRAM of the machine serving ``server_url``; None when nobody reports it."""
        ...
