"""The fixture every area uses (a plugin of the root conftest): a throw-away vault with its own index."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

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
