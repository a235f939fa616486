"""The search page in real headless Chromium: a search in the address (?q=), facets on true/false, the scope
boundary, and a phone's width (390 px) with every control on screen (the screenshot in docs/images/).

The small vault here is served local-only on loopback (no key asked) and searched by wording; the phone test
runs over the eval slice with the real model (conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from sentinel.settings import Settings
from services.api.app import create_app
from tests.support.servers import serve
from tests.support.surfaces import Served

HITS = "#hits li[role=option]"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "images"
PAGES = {
    "notes/Sync on mobile.md": "---\nmobile: true\n---\n# Sync on mobile\n\nSync keeps the phone's vault current.",
    "notes/Sync on desktop.md": "---\nmobile: false\n---\n# Sync on desktop\n\nSync runs on the desktop app.",
    "notes/Sync diary.md": "---\nscope: personal\n---\n# Sync diary\n\nSync, sync, sync: I set up sync today.",
    "Journal/Tuesday.md": "# Tuesday\n\nSync broke again on Tuesday; the sync log was empty.",
}


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("address")
    for rel, text in PAGES.items():
        (root / "vault" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "vault" / rel).write_text(text)
    settings = Settings(vault=root / "vault", index_path=root / "index.db", local_only=True, _env_file=None)
    settings.search = settings.search.model_copy(update={"scope_folders": {"Journal": "personal"}})
    with serve(create_app(settings)) as url:
        yield url


def _paths(page: Page) -> list[str]:
    return sorted(page.locator(f"{HITS} .path").all_inner_texts())


def test_the_address_carries_the_search(page: Page, local: str) -> None:
    page.goto(f"{local}/search?q={quote('?sync on the phone')}")
    expect(page.locator("#q")).to_have_value("?sync on the phone")
    expect(page.locator("#mode")).to_have_text("semantic")
    expect(page.locator(HITS).first).to_contain_text("Sync on mobile")
    page.fill("#q", "mobile:true")
    expect(page.locator(HITS)).to_have_count(1)
    assert page.url.endswith("/search?q=mobile%3Atrue")  # typed searches can be bookmarked and shared
    page.reload()
    expect(page.locator("#q")).to_have_value("mobile:true")
    expect(page.locator(HITS)).to_have_count(1)
    icon = page.request.get(f"{local}/favicon.ico")
    assert icon.ok and "svg" in icon.headers["content-type"]
    href = page.locator('link[rel="search"]').get_attribute("href")
    assert href and "{searchTerms}" in page.request.get(f"{local}{href}").text()


def test_facets_on_true_and_false(page: Page, local: str) -> None:
    page.goto(f"{local}/search?q=mobile%3Afalse")
    expect(page.locator(HITS)).to_have_count(1)
    assert _paths(page) == ["notes/Sync on desktop.md"]
    page.fill("#q", "mobile:true")
    expect(page.locator(f"{HITS} .path")).to_have_text(["notes/Sync on mobile.md"])
    page.fill("#q", "sync mobile:False")
    expect(page.locator(f"{HITS} .path")).to_have_text(["notes/Sync on desktop.md"])


def test_personal_pages_only_when_asked(page: Page, local: str) -> None:
    page.goto(f"{local}/search?q={quote('?sync')}")
    expect(page.locator("#notes")).to_contain_text("left out")
    assert _paths(page) == ["notes/Sync on desktop.md", "notes/Sync on mobile.md"]
    page.fill("#q", "sync scope:personal")
    expect(page.locator(HITS, has_text="Journal/Tuesday.md")).to_have_count(1)
    assert _paths(page) == ["Journal/Tuesday.md", "notes/Sync diary.md"]
    page.fill("#q", "diary")  # Quick, by name: the boundary holds there too
    expect(page.locator("#hits")).to_contain_text("no matches")


def test_a_phone_keeps_every_control_on_screen(browser: Browser, served: Served) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    page.goto(f"{served.url}/search?q={quote('?run a command from the keyboard')}")
    page.fill("#key", served.read_key)
    page.press("#key", "Enter")
    expect(page.locator(HITS).first).to_be_visible()
    for control in ("#q", "#mode", 'input[name="rung"][value="summary"]', 'input[name="rung"][value="body"]'):
        box = page.locator(control).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (control, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing sideways
    page.check('input[name="rung"][value="body"]')
    expect(page.locator(f"{HITS} .trail").first).not_to_be_empty()
    page.check('input[name="rung"][value="summary"]')
    expect(page.locator(f"{HITS} .trail")).to_have_count(0)
    next_box = page.locator("#next").bounding_box()
    assert next_box and next_box["x"] + next_box["width"] <= 390
    DOCS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOCS / "search-page-390px.png"))
    context.close()
