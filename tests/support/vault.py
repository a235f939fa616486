"""The fixture every area uses (a plugin of the root conftest): a throw-away vault with its own index."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from sentinel.index.fold import register
from sentinel.index.migrations import MIGRATIONS
from sentinel.search import search
from sentinel.settings import Settings

WriteVault = Callable[[dict[str, str]], Settings]


@dataclass
class Indexed:
    """A vault's settings and an open index over it."""

    settings: Settings
    db: sqlite3.Connection


@pytest.fixture
def vault_settings(tmp_path: Path) -> WriteVault:
    """Write the given {relpath: text} files into a fresh vault and return settings pointing at it."""

    def make(files: dict[str, str]) -> Settings:
        vault = tmp_path / "vault"
        vault.mkdir(exist_ok=True)
        for rel, text in files.items():
            target = vault / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return Settings(vault=vault, index_path=tmp_path / "index" / "index.db", _env_file=None)

    return make


def top_hit(settings: Settings, db: sqlite3.Connection, query: str) -> str:
    """The path ``search()`` ranks first for ``query`` (lexical leg alone: no embedder), or "" for no hit."""
    hits = search(db, settings, None, query, limit=3).hits
    return hits[0].path if hits else ""


def index_before(settings: Settings, migrations: int, path: str, text: str) -> sqlite3.Connection:
    """An index at ``settings.index_path`` made by the first ``migrations`` only, holding one page at ``path``
    with one chunk of ``text`` (written through that schema's own triggers); the next ``open_index`` migrates
    it."""
    index = settings.index_path
    assert index is not None
    index.parent.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(index, isolation_level=None)
    register(old)
    for migration in MIGRATIONS[:migrations]:
        migration(old)
    old.execute(f"PRAGMA user_version = {migrations}")
    stem = path.removesuffix(".md")
    old.execute(
        "INSERT INTO pages (path, title, path_key, name_key, role, hash, mtime_ns, size, indexed_at) "
        "VALUES (?, 'x', ?, 'x', 'note', 'h', 0, 0, 0)",
        (path, stem),
    )
    old.execute(
        "INSERT INTO chunks (path, ordinal, trail, heading, text, text_hash, words) VALUES (?, 0, 'x', '', ?, 'h', ?)",
        (path, text, len(text.split())),
    )
    return old
