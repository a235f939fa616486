"""Live freshness: an edit in the vault is indexed at once and its changed chunks embedded right after.

File events (watchdog: inotify, FSEvents, ReadDirectoryChangesW) only say *which* paths to look at; what a path
now is, is decided by the sync, as for every other change. Events are collected until the vault has been quiet
for ``watch_debounce_s``, so an editor's save dance (write a temp file, rename it over the page; delete and
create; swap files) becomes one re-read of the page. A folder event (rename, move, delete of a folder) and any
deletion run the full sync, which applies the mass-disappearance guard: an unmounted drive is never an edit.

Some mounts never deliver events (Docker Desktop bind mounts, network drives). A cheap mtime poll (the full
sync: a walk and a stat per file) runs every ``sync_interval_s`` as a safety net; when it finds a change that
no event announced, the watcher says so once in the log and polls every ``watch_poll_s`` from then on.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from sentinel.index.sync import SyncReport, sync, sync_paths
from sentinel.paths import not_vault_content
from sentinel.settings import Settings

log = logging.getLogger("sentinel.watch")

# a poll that finds a path an event named this recently is a race with that event, not a missing one
RECENT_EVENT_S = 30.0


class Watched(Protocol):
    """The index the watcher keeps current, and what follows its changes: the watcher publishes the paths a
    round changed, and the layers above subscribe (``sentinel.tools.context.ToolContext``: search embeds their
    chunks and brings its view up to date). The storage layer never imports them."""

    settings: Settings
    write_lock: threading.Lock
    # set while a whole run embeds every pending passage elsewhere (split across workers): the start-up backlog
    # waits for it instead of embedding the same pages here; edits are still embedded at once
    backlog_elsewhere: threading.Event

    @property
    def embedder(self) -> object | None:
        """Whether changed chunks can be embedded at all (None: no embedder in this process)."""
        ...

    def writer(self) -> sqlite3.Connection: ...

    def embed_changed(self, paths: list[str]) -> tuple[int, str]:
        """Embed the chunks of ``paths`` that have no vector, under ``write_lock``; (chunks embedded, why not)."""
        ...

    def refresh_view(self) -> str:
        """Bring the search view up to date after a change; how ("in place" or "whole")."""
        ...


@dataclass
class Freshened:
    """What one round of the watcher did."""

    report: SyncReport
    embedded: int = 0
    embed_problem: str = ""  # why the changed chunks were not embedded ("" when they were, or none changed)
    view: str = ""  # how the search view was brought up to date ("in place" or "whole")
    view_s: float = 0.0
    seconds: float = 0.0


@dataclass
class _Pending:
    """Paths named by events since the last round; ``everything`` when only a full sync can tell."""

    paths: set[str] = field(default_factory=set)
    everything: bool = False
    last_event: float = 0.0


# pages whose chunks one background round embeds: small, so an edit waits behind at most one such round
BACKLOG_PAGES = 16
BACKLOG_RETRY_S = 30.0


def freshen(ctx: Watched, paths: set[str] | None = None, *, embed: bool = True) -> Freshened:
    """Re-index ``paths`` (None: the whole vault, guard applied) and, with ``embed``, the chunks that changed.

    A batch with a vanished path runs the full sync, so deletions always pass the mass-disappearance guard."""
    started = time.perf_counter()
    vault = ctx.settings.vault
    with ctx.write_lock:
        db = ctx.writer()
        if paths is not None and all((vault / rel).is_file() for rel in paths):
            report = sync_paths(ctx.settings, db, sorted(paths))
        else:
            report = sync(ctx.settings, db)
        done = Freshened(report)
        if embed:
            done.embedded, done.embed_problem = ctx.embed_changed(report.changed_paths)
    viewed = time.perf_counter()
    done.view = ctx.refresh_view()  # update the search view now, not in the next query's time
    done.view_s = time.perf_counter() - viewed
    done.seconds = time.perf_counter() - started
    return done


class VaultWatcher:
    """Keeps one API process's index current. ``start`` returns at once; ``stop`` ends the thread."""

    def __init__(self, ctx: Watched, on_round: Callable[[Freshened], None] | None = None) -> None:
        self.ctx = ctx
        self.settings = ctx.settings
        self.on_round = on_round
        self.polling = self.settings.watch == "poll"
        self._pending = _Pending()
        self._recent: dict[str, float] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._observer: Any = None
        self._backlog: list[str] = []
        self._backlog_at = 0.0
        self._backlog_told = False
        self._thread = threading.Thread(target=self._loop, daemon=True, name="vault-watch")

    def start(self, backlog: list[str] | None = None) -> None:
        """Watch from now on; ``backlog`` (pages indexed at start-up) is embedded in small rounds while the
        vault is quiet, so a new install becomes searchable by meaning without a command."""
        self._backlog = list(backlog or [])
        if self.settings.watch == "auto":
            self._start_observer()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        self._thread.join(timeout=10)

    def _start_observer(self) -> None:
        try:
            from watchdog.observers import Observer  # the optional 'api' extra
        except ImportError:
            self._fall_back("watchdog is not installed (pip install 'sentinel[api]')")
            return
        observer = Observer()
        observer.schedule(cast(Any, _Handler(self)), str(self.settings.vault), recursive=True)  # duck-typed handler
        try:
            observer.start()
        except OSError as error:  # e.g. the inotify watch limit (fs.inotify.max_user_watches)
            self._fall_back(f"file events are unavailable ({error})")
            return
        self._observer = observer

    def _fall_back(self, why: str) -> None:
        self.polling = True
        log.warning(
            f"{why}: polling the vault's file times every {self.settings.watch_poll_s:g}s instead",
            extra={"event": "watch-poll"},
        )

    def noticed(self, relpath: str | None, everything: bool = False) -> None:
        """An event named ``relpath`` (a vault page), or a folder (``everything``)."""
        now = time.monotonic()
        with self._lock:
            self._pending.last_event = now
            if everything:
                self._pending.everything = True
            elif relpath is not None:
                self._pending.paths.add(relpath)
                self._recent[relpath] = now
        self._wake.set()

    def _take_when_quiet(self) -> _Pending | None:
        """The pending batch once no event came for ``watch_debounce_s``; None while the vault is still busy."""
        with self._lock:
            if not (self._pending.paths or self._pending.everything):
                return None
            if time.monotonic() - self._pending.last_event < self.settings.watch_debounce_s:
                return None
            batch, self._pending = self._pending, _Pending()
            return batch

    def _poll_every(self) -> float:
        """Seconds between polls; infinite when neither polling nor the safety net is on."""
        if self.polling:
            return self.settings.watch_poll_s
        return self.settings.sync_interval_s if self.settings.sync_interval_s > 0 else float("inf")

    def _loop(self) -> None:
        next_poll = time.monotonic() + self._poll_every()
        tick = self.settings.watch_debounce_s / 3  # how late after the quiet time an edit is picked up, at most
        while not self._stop.is_set():
            self._wake.wait(timeout=min(tick, max(0.0, next_poll - time.monotonic())))
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                batch = self._take_when_quiet()
                if batch is not None:
                    self._round(None if batch.everything else batch.paths)
                elif self._backlog and self._backlog_due():
                    self._embed_backlog()
                elif time.monotonic() >= next_poll:
                    self._poll()
            except Exception:
                log.exception("keeping the index current failed; trying again at the next change or poll")
            if time.monotonic() >= next_poll:
                next_poll = time.monotonic() + self._poll_every()

    def _backlog_due(self) -> bool:
        return (
            self.ctx.embedder is not None
            and not self.ctx.backlog_elsewhere.is_set()
            and time.monotonic() >= self._backlog_at
        )

    def _embed_backlog(self) -> None:
        step, self._backlog = self._backlog[:BACKLOG_PAGES], self._backlog[BACKLOG_PAGES:]
        with self.ctx.write_lock:
            _, problem = self.ctx.embed_changed(step)
        if problem:  # e.g. the embedder service still starting: try again later, said once
            self._backlog = step + self._backlog
            self._backlog_at = time.monotonic() + BACKLOG_RETRY_S
            if not self._backlog_told:
                self._backlog_told = True
                log.warning(
                    f"pages indexed at start-up not embedded yet ({problem}); trying again every {BACKLOG_RETRY_S:g}s",
                    extra={"event": "embed-skipped"},
                )
            return
        if not self._backlog:
            log.info("every page indexed at start-up is embedded", extra={"event": "backlog-embedded"})
        self._wake.set()  # next step at once, unless an edit arrived

    def _poll(self) -> None:
        done = self._round(None)
        if self.settings.watch != "auto" or self.polling:
            return
        if not done.report.changed_paths and not done.report.removed:
            return
        cutoff = time.monotonic() - RECENT_EVENT_S
        with self._lock:
            self._recent = {p: t for p, t in self._recent.items() if t >= cutoff}
            unannounced = [p for p in done.report.changed_paths if p not in self._recent]
        if unannounced or (done.report.removed and not self._recent):
            self._fall_back(f"a change to {(unannounced or ['a removed page'])[0]} arrived without a file event")

    def _round(self, paths: set[str] | None) -> Freshened:
        done = freshen(self.ctx, paths)
        report = done.report
        if report.changed_paths or report.removed or report.refused:
            log.info(
                "vault changed",
                extra={
                    **report.as_dict(),
                    "embedded": done.embedded,
                    "search_view": done.view,
                    "view_seconds": round(done.view_s, 3),
                    "freshen_seconds": round(done.seconds, 3),
                },
            )
        if done.embed_problem:
            log.warning(f"changed chunks not embedded: {done.embed_problem}", extra={"event": "embed-skipped"})
        if self.on_round:
            self.on_round(done)
        return done


class _Handler:
    """Turns watchdog's events into vault paths to look at; anything that is not a page is ignored."""

    def __init__(self, watcher: VaultWatcher) -> None:
        self.watcher = watcher
        self.root = Path(watcher.settings.vault).resolve()

    def _relpath(self, path: str | bytes) -> str | None:
        text = path.decode() if isinstance(path, bytes) else path
        try:
            rel = Path(text).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if not_vault_content(rel) else rel  # the walk's own definition of what is indexed

    def dispatch(self, event: Any) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # reads, not changes
        if event.is_directory:
            if event.event_type != "modified":  # a folder renamed, moved, created or deleted
                self.watcher.noticed(None, everything=True)
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path and (rel := self._relpath(path)) is not None:
                self.watcher.noticed(rel)
