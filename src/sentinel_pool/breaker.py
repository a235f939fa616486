"""The circuit breaker: a backend that fails is cooled down, then probed back with one request.

Per gateway process and per backend (node, URL). ``failures`` consecutive failures open the breaker for a
cooldown that doubles on every failed probe (up to ``max_cooldown_s``); once it has run out, exactly one request
is let through as the probe (half-open). Its success closes the breaker; its failure opens it again. A backend
that is open gets no requests, so a node answering 500 or hanging costs one request per cooldown, not every one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

Key = tuple[str, str]  # (node, backend url)


@dataclass
class _State:
    failures: int = 0
    cooldown_s: float = 0.0
    open_until: float = 0.0  # monotonic; 0: closed
    probing: bool = False


class Breaker:
    def __init__(
        self,
        failures: int,
        cooldown_s: float,
        max_cooldown_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._threshold, self._base, self._max, self._clock = failures, cooldown_s, max_cooldown_s, clock
        self._states: dict[Key, _State] = {}

    def blocked(self, key: Key) -> float:
        """Seconds until ``key`` may be tried again; 0 when it may be now (closed, or its probe is due)."""
        state = self._states.get(key)
        if state is None or not state.open_until:
            return 0.0
        if state.probing:
            return max(self._base, state.open_until - self._clock())  # one probe at a time
        return max(0.0, state.open_until - self._clock())

    def reason(self, key: Key) -> str:
        state = self._states.get(key)
        if state is None or not state.open_until:
            return ""
        wait = self.blocked(key)
        if wait:
            return f"cooled down after {state.failures} failures: next try in {wait:.1f} s"
        return "cooldown over: this request is the probe"

    def taken(self, key: Key) -> None:
        """A request is going to ``key``; if its breaker is open, that request is the probe."""
        state = self._states.get(key)
        if state is not None and state.open_until:
            state.probing = True

    def succeeded(self, key: Key) -> None:
        self._states.pop(key, None)

    def failed(self, key: Key) -> None:
        state = self._states.setdefault(key, _State())
        state.failures += 1
        if state.failures < self._threshold and not state.open_until:
            return
        state.cooldown_s = min(self._max, state.cooldown_s * 2 if state.cooldown_s else self._base)
        state.open_until, state.probing = self._clock() + state.cooldown_s, False

    def released(self, key: Key) -> None:
        """A request to ``key`` ended without a verdict on the node (the client left): a probe may go again."""
        state = self._states.get(key)
        if state is not None:
            state.probing = False
