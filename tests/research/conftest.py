"""Research fixtures: a loopback web site built from eval vault pages in several languages (plus every kind of page
research must refuse), a stand-in SearXNG, and an indexed vault to write into. The real e5 model and the pass
runner are the root conftest's plugins."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.settings import Settings
from tests.support.eval_data import require_eval_vault
from tests.support.research import PAGES, TEST_RESEARCH, MakeVault
from tests.support.web_site import LoopbackSite, SitePage, page_from_markdown


@pytest.fixture(scope="session")
def site_pages() -> list[SitePage]:
    vault = require_eval_vault()
    return [page_from_markdown(vault / rel, lang) for rel, lang in PAGES]


@pytest.fixture
def site(site_pages: list[SitePage]) -> Iterator[LoopbackSite]:
    with LoopbackSite(site_pages, huge_bytes=400_000, slow_s=6.0) as running:
        yield running


@pytest.fixture
def research_vault(tmp_path: Path) -> MakeVault:
    """An indexed vault (a Sentinel vault: research's target check needs its index) with these settings."""

    def make(files: dict[str, str] | None = None, **research: object) -> Settings:
        vault = tmp_path / "vault"
        vault.mkdir(exist_ok=True)
        for rel, text in (files or {"notes/start.md": "# Start\n\nA note.\n"}).items():
            (vault / rel).parent.mkdir(parents=True, exist_ok=True)
            (vault / rel).write_text(text, encoding="utf-8")
        settings = Settings(
            vault=vault,
            index_path=tmp_path / "index" / "index.db",
            research=TEST_RESEARCH.model_copy(update=research),
            _env_file=None,
        )
        db = open_index(settings)
        sync(settings, db)
        db.close()
        return settings

    return make
