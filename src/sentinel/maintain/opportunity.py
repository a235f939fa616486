"""Opportunistic maintenance: a pass between nights, when the machine is free for it (``maintain_idle_minutes``).

The seed's "what a bigger card would unlock": instead of waiting for the timer, run the pass once

- the vault has been quiet for N minutes (no page written: nobody is typing),
- the conversation model has had no chat for N minutes (the chat-first record the gateway keeps in Redis),
- the analysis model fits beside it: it is already in memory on its server, or its size (the server's own
  model list) fits in the free VRAM the pool agent on that machine reports, and
- something is owed (pages awaiting analysis): an idle vault with nothing new is left alone.

Every fact comes from what a server reports; one that cannot be read is a "no" that says why, never a guess.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

import httpx

from sentinel.maintain import queue, schedule
from sentinel.providers.servers import ModelServer
from sentinel.serving import ServingRecord, server_key
from sentinel.settings import ProviderSettings, Settings
from sentinel.vault.walk import check_vault, walk_vault

STATUS_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Chance:
    go: bool
    reason: str  # why not (or, when ``go``, what made it a good moment)


def vault_quiet_s(settings: Settings, now: float | None = None) -> float:
    """Seconds since the newest page was written."""
    files = walk_vault(check_vault(settings.vault)).files
    newest = max((f.mtime_ns for f in files), default=0) / 1e9
    return (time.time() if now is None else now) - newest


def chat_quiet_s(serving: ServingRecord, settings: Settings, now: float | None = None) -> float | None:
    """Seconds since the conversation model's server last had a chat (None: never seen one); 0 while one is in
    flight. Raises ``ConnectionError`` when the record cannot be read."""
    state = serving.chat_state(server_key(settings.conversation.base_url), now)
    return 0.0 if state.in_flight else state.idle_s


def model_fits(serving: ServingRecord, role: ProviderSettings) -> Chance:
    """Whether the analysis model can run beside the conversation model, as its server and the pool report."""
    server = ModelServer.of(role)
    root = server.root
    try:
        with httpx.Client(timeout=STATUS_TIMEOUT_S) as http:
            probe = server.probe(http)
    except (httpx.HTTPError, ValueError) as error:
        return Chance(False, f"the model server {root} did not report its models ({error})")
    if not probe.sizes:  # llama.cpp and other OpenAI-shaped servers do not report model sizes
        reason = f"{role.model} is loaded on {root}" if probe.awake else f"{root} reports no model size to compare"
        return Chance(bool(probe.awake), reason)
    if role.model in probe.loaded:
        return Chance(True, f"{role.model} is already in memory on {root}")
    size = probe.sizes.get(role.model)
    if size is None:
        return Chance(False, f"{root} does not list {role.model} with a size")
    free = serving.free_vram_mb(role.base_url)
    if free is None:
        return Chance(False, f"no pool agent reports the free VRAM of {root}'s machine")
    need = size // (1024 * 1024)
    if need > free:
        return Chance(False, f"{role.model} needs {need} MiB and {root}'s machine has {free} MiB free")
    return Chance(True, f"{role.model} ({need} MiB) fits in the {free} MiB free beside the conversation model")


def chance(settings: Settings, db: sqlite3.Connection, serving: ServingRecord, now: float | None = None) -> Chance:
    """Whether now is a moment for an unscheduled pass, and why (not), from the pool's ``serving`` record."""
    minutes = settings.maintain_idle_minutes
    if minutes <= 0:
        return Chance(False, "opportunistic maintenance is off (SENTINEL_MAINTAIN_IDLE_MINUTES=0)")
    if not schedule.schedule_started(db):
        return Chance(False, schedule.NOT_STARTED)
    owed = queue.count_awaiting(db)
    if not owed:
        return Chance(False, "nothing is owed: no page awaits analysis")
    quiet = vault_quiet_s(settings, now)
    if quiet < minutes * 60:
        return Chance(False, f"the vault changed {quiet / 60:.1f} min ago (waiting for {minutes:g} quiet minutes)")
    try:
        chatted = chat_quiet_s(serving, settings, now)
    except ConnectionError as error:
        return Chance(False, str(error))
    if chatted is not None and chatted < minutes * 60:
        return Chance(False, f"the conversation model had a chat {chatted / 60:.1f} min ago (or has one now)")
    fits = model_fits(serving, settings.extraction)
    if not fits.go:
        return fits
    return Chance(True, f"{owed} pages owed, vault and chat quiet for {minutes:g} min; {fits.reason}")
