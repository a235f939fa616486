"""What a primitive needs to run: settings, index connections, the embedder, and who is calling."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import StrEnum

from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.index.db import open_index
from sentinel.paths import index_path
from sentinel.search.embedding import VectorsFromAnotherModel, embed_pending
from sentinel.search.view import current_view
from sentinel.settings import Settings

log = logging.getLogger("sentinel.index")


class Origin(StrEnum):
    """Who asked: a model in a conversation, or a person at the command line / in Obsidian."""

    MODEL = "model"
    USER = "user"


@dataclass
class ToolContext:
    """Shared by every call in one process. Reads run in parallel on per-thread connections; writes take
    ``write_lock`` and the single writer connection, so the index sees one writer at a time."""

    settings: Settings
    embedder: Embedder | None = None
    origin: Origin = Origin.MODEL
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    backlog_elsewhere: threading.Event = field(default_factory=threading.Event)  # see index.watch.Watched
    _local: threading.local = field(default_factory=threading.local)
    _readers: list[sqlite3.Connection] = field(default_factory=list)  # every thread's, so ``close`` reaches them
    _readers_lock: threading.Lock = field(default_factory=threading.Lock)
    _writer: sqlite3.Connection | None = None
    _writer_file: tuple[int, int] | None = None
    _turns: OrderedDict[str, dict[str, str]] = field(default_factory=OrderedDict)
    _turn_lock: threading.Lock = field(default_factory=threading.Lock)
    _health_said: OrderedDict[str, str] = field(default_factory=OrderedDict)

    def reader(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is not None and self._local.file != self._index_file():
            self._replaced(db)
            db = None
        if db is None:
            db = open_index(self.settings)
            self._local.file = self._index_file()
            self._local.db = db
            with self._readers_lock:
                self._readers.append(db)
        return db

    def writer(self) -> sqlite3.Connection:
        """The one writing connection; call only while holding ``write_lock``."""
        if self._writer is not None and self._writer_file != self._index_file():
            self._replaced(self._writer)
            self._writer = None
        if self._writer is None:
            self._writer = open_index(self.settings)
            self._writer_file = self._index_file()
        return self._writer

    def _index_file(self) -> tuple[int, int] | None:
        """Which file the index path names now (device, inode); None when there is none."""
        try:
            st = os.stat(index_path(self.settings))
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _replaced(self, db: sqlite3.Connection) -> None:
        """The index file was deleted or replaced under an open connection (a CLI rebuild, a person): drop the
        connection, so this process and the CLI use the same file again instead of two."""
        log.warning("the index file %s was deleted or replaced; opening the one there now", index_path(self.settings))
        with self._readers_lock:
            if db in self._readers:
                self._readers.remove(db)
        db.close()

    def close(self) -> None:
        """Close every connection this context opened (a service stopping): each holds the index, its WAL and
        shared memory open, 7 descriptors that otherwise stay open until the garbage collector finds them."""
        with self._readers_lock:
            readers, self._readers = self._readers, []
        for db in readers:
            db.close()
        self._local = threading.local()
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def embed_changed(self, paths: list[str]) -> tuple[int, str]:
        """The watcher's change, followed by search: the chunks of ``paths`` that have no vector embedded (call
        while holding ``write_lock``); (chunks embedded, why not)."""
        if self.embedder is None or not paths:
            return 0, ""
        try:
            return embed_pending(self.writer(), self.embedder, paths=paths).chunks, ""
        except (EmbedderUnavailable, VectorsFromAnotherModel) as error:
            return 0, str(error)

    def refresh_view(self) -> str:
        """The watcher's change, followed by search: its view brought up to date now, not in the next query's time."""
        return current_view(self.reader()).made

    def earlier(self, turn: str, key: str) -> str | None:
        """The answer already given to the same request in this turn, if any."""
        with self._turn_lock:
            return self._turns.get(turn, {}).get(key) if turn else None

    def remember(self, turn: str, key: str, answer: str) -> None:
        """Keep an answer for the rest of the turn (the last 256 turns are remembered)."""
        if not turn:
            return
        with self._turn_lock:
            self._turns.setdefault(turn, {})[key] = answer
            self._turns.move_to_end(turn)
            while len(self._turns) > 256:
                self._turns.popitem(last=False)

    def health_to_say(self, chat: str, health: str) -> str:
        """``health`` the first time a chat meets it, and when it changed since; "" otherwise (last 256 chats)."""
        with self._turn_lock:
            if self._health_said.get(chat) == health:
                return ""
            self._health_said[chat] = health
            self._health_said.move_to_end(chat)
            while len(self._health_said) > 256:
                self._health_said.popitem(last=False)
            return health
