"""Surfaces fixtures: a slice of the eval vault in its four languages, a generated concept page and a seedling,
indexed and embedded once with the real e5 model, served by the real API on loopback with a read and a write key.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.gates.definition import Candidate
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.keys import Scope, create_key
from sentinel.maintain.concepts import page_text
from sentinel.paths import concept_path, keys_path
from sentinel.search import embed_pending
from sentinel.settings import Settings
from services.api.app import create_app
from tests.support.eval_data import copy_pages
from tests.support.servers import serve
from tests.support.surfaces import CHROMIUM, CHROMIUM_ARGS, QUOTED, SEEDLING, SLICE, Served, settings_in


@pytest.fixture(scope="session")
def surface_vault(tmp_path_factory: pytest.TempPathFactory, e5: OnnxEmbedder) -> tuple[Settings, str]:
    """The slice with a concept page the maintenance pass's own writer made, indexed and embedded once."""
    root = tmp_path_factory.mktemp("surfaces")
    settings = settings_in(root)
    copy_pages(SLICE, settings.vault)
    concept = concept_path("Command palette plugin", settings)
    cited = Candidate(QUOTED, "en/Plugins/Command palette.md", "en", True, False)
    (settings.vault / concept).parent.mkdir(parents=True)
    (settings.vault / concept).write_text(page_text("Command palette plugin", concept, [cited], settings))
    (settings.vault / SEEDLING).parent.mkdir(parents=True)
    (settings.vault / SEEDLING).write_text(
        "---\ntype: idea\nstatus: seedling\n---\n# Palette ideas\n\nA palette of colours for the theme.\n\n"
        "## Keyboard\n\nThe command palette could learn the most used commands.\n"
    )
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    db.close()
    return settings, concept


@pytest.fixture(scope="module")
def served(surface_vault: tuple[Settings, str]) -> Iterator[Served]:
    settings, concept = surface_vault
    _, write_key = create_key(keys_path(settings), Scope.WRITE, "surfaces")
    _, read_key = create_key(keys_path(settings), Scope.READ, "surfaces")
    with serve(create_app(settings)) as url:
        yield Served(url, settings, read_key, write_key, concept)


SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, driven by playwright (no browser is downloaded: CI installs chromium)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run installs it)", pytrace=False)
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh browser profile per test; a failed test leaves its screenshot in build/screenshots/."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    yield opened
    if request.node.stash.get(FAILED, False):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / f"{request.node.name}.png"
        opened.screenshot(path=str(shot), full_page=True)
        print(f"screenshot of the failed page: {shot}")
    context.close()
