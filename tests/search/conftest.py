"""Search fixtures: a small real multilingual vault, embedded with the real multilingual-e5-small model (the
root conftest's ``e5``).

The shared vault is a slice of the eval vault (SENTINEL_EVAL_VAULT, see tests/support/eval_data.py), indexed and
embedded once per session. Tests that change a vault build their own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending
from sentinel.settings import Settings
from tests.support.eval_data import copy_pages
from tests.support.vault import Indexed

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
