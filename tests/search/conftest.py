"""Search fixtures: the real multilingual-e5-small model and a small real multilingual vault.

The shared vault is a slice of the eval vault (SENTINEL_EVAL_VAULT, see tests/support/eval_data.py), indexed and
embedded once per session. Tests that change a vault build their own.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sentinel.embed.onnx import OnnxEmbedder, locate_model_files
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending
from sentinel.settings import Settings
from tests.support.embedder import E5_DIR
from tests.support.eval_data import require_eval_vault
from tests.support.fixtures import llama_settings, llama_url  # noqa: F401  (the real model, for answer evals)


@pytest.fixture(scope="session")
def e5() -> OnnxEmbedder:
    """The real model; a missing model fails, naming `make models` (CI builds it via `make test-prereqs`)."""
    locate_model_files(E5_DIR)
    return OnnxEmbedder(E5_DIR, threads=2, batch=32)


# Turkish pages with their English twins, and English pages on nearby subjects (distractors, and pages
# that exist only in English). Small enough to embed in seconds.
EVAL_SLICE = [
    "tr/Eklentiler/Dosya Kurtarma.md",
    "en/Plugins/File recovery.md",
    "tr/Eklentiler/Komut Paleti.md",
    "en/Plugins/Command palette.md",
    "tr/Eklentiler/Ses kaydedicisi.md",
    "en/Plugins/Audio recorder.md",
    "tr/Eklentiler/Rastgele Not.md",
    "en/Plugins/Random note.md",
    "tr/Obsidian Sync/Durum simgesi ve mesajlar.md",
    "en/Obsidian Sync/Status icon and messages.md",
    "en/Obsidian Sync/Version history.md",
    "en/User interface/Hotkeys.md",
    "en/Editing and formatting/Editing shortcuts.md",
]


def copy_pages(paths: list[str], vault: Path) -> None:
    for rel in paths:
        target = vault / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(require_eval_vault() / rel, target)


@dataclass
class Indexed:
    settings: Settings
    db: sqlite3.Connection


@pytest.fixture(scope="session")
def eval_index(tmp_path_factory: pytest.TempPathFactory, e5: OnnxEmbedder) -> Iterator[Indexed]:
    """The eval slice, indexed and embedded once. Read it, never change it."""
    root = tmp_path_factory.mktemp("eval-slice")
    copy_pages(EVAL_SLICE, root / "vault")
    settings = Settings(vault=root / "vault", index_path=root / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    yield Indexed(settings, db)
    db.close()
