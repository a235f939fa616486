"""Chat comes first: a maintenance pass that shares a model server with chats waits between pages until that
server has been free of chat for ``maintain_chat_idle_s``. The chats are seen through the ``ServingRecord`` the
pool keeps (``sentinel.serving``); a pass given none sees no chats and never waits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sentinel.serving import RecordUnavailable, ServingRecord, server_key
from sentinel.settings import Settings

log = logging.getLogger("sentinel.pool.chat_first")

POLL_S = 1.0


def chat_waiter(
    settings: Settings,
    serving: ServingRecord | None,
    say: Callable[[str], None],
    sleep: Callable[[float], None] = time.sleep,
) -> Callable[[], None]:
    """A function the pass calls between pages: it returns at once while no chat uses the pass's model servers,
    and otherwise waits (saying so once) until they have had no chat for ``maintain_chat_idle_s``. When the
    record cannot be read it says so once and never waits: there is no chat to see."""
    if serving is None:
        return lambda: None  # no pool's record (installed without the api/worker extras): no chat to yield to
    servers = sorted({server_key(role.base_url) for role in (settings.extraction, settings.summary)})
    idle_needed = settings.maintain_chat_idle_s
    blind = False

    def busy() -> tuple[str, str] | None:
        for server in servers:
            state = serving.chat_state(server)
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
            except RecordUnavailable as error:
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
