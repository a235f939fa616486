"""The search page in real headless Chromium against the real API on loopback (see conftest.py)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from services.api.app import create_app
from tests.support.servers import serve
from tests.support.surfaces import QUOTED, Served

HITS = "#hits li[role=option]"


def _signed_in(page: Page, served: Served) -> Page:
    page.goto(f"{served.url}/search")
    page.fill("#key", served.read_key)
    page.press("#key", "Enter")
    expect(page.locator("#key-form")).to_be_hidden()
    return page


def _search(page: Page, typed: str) -> None:
    page.keyboard.press("Control+K")
    page.keyboard.type(typed)
    expect(page.locator("#mode")).not_to_be_empty()


def _paths(page: Page) -> list[str]:
    return page.locator(f"{HITS} .path").all_inner_texts()


def test_key_asked_once_kept_and_refused_on_a_write_route(page: Page, served: Served) -> None:
    page.goto(f"{served.url}/")
    expect(page.locator("#key-form")).to_be_visible()
    page.fill("#key", "snt_not-a-key")
    page.press("#key", "Enter")
    expect(page.locator("#error")).to_contain_text("not accepted")
    _signed_in(page, served)
    page.reload()
    expect(page.locator("#key-form")).to_be_hidden()  # kept in this browser: not asked again
    expect(page.locator("#q")).to_be_focused()
    status, detail = page.evaluate(
        """async () => {
             const r = await fetch('/v1/tools/write', {method: 'POST', headers: {
               'Content-Type': 'application/json', Authorization: 'Bearer ' + localStorage.getItem('sentinel.readKey')},
               body: JSON.stringify({path: 'notes/x.md', content: 'x'})});
             return [r.status, (await r.json()).detail];
           }"""
    )
    assert status == 403 and "write-scoped" in detail
    assert not (served.settings.vault / "notes/x.md").exists()


def test_quick_mode_and_keyboard(page: Page, served: Served) -> None:
    _signed_in(page, served)
    page.click("h1, .help")  # focus leaves the input; Ctrl+K brings it back
    _search(page, "palet")
    expect(page.locator("#mode")).to_have_text("quick")
    expect(page.locator("#where")).to_have_text("1–6")  # six names hold "palet": ten per page
    starts = {"notes/Palette ideas.md", "es/Complementos/Paleta de comandos.md"}  # names starting with it first
    assert set(_paths(page)[:2]) == starts
    assert "tr/Eklentiler/Komut Paleti.md" in _paths(page)
    assert "de/Erweiterungen/Befehlspalette.md" in _paths(page)
    expect(page.locator("#next")).to_be_disabled()
    first = page.locator(HITS).nth(0)
    expect(first).to_have_attribute("aria-selected", "true")
    for _ in range(7):  # six hits: the selection stops at the last
        page.keyboard.press("ArrowDown")
    expect(page.locator(HITS).nth(5)).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowUp")
    second = page.locator(HITS).nth(4)
    expect(second).to_have_attribute("aria-selected", "true")
    expect(page.locator(HITS).nth(5)).to_have_attribute("aria-selected", "false")
    target = second.locator(".path").inner_text()
    page.keyboard.press("Enter")
    opened = page.locator("body").get_attribute("data-opened")
    assert opened == f"obsidian://open?vault=vault&file={quote(target.removesuffix('.md'), safe='')}"
    assert second.locator("a.title").get_attribute("href") == opened


def test_facet_mode_labels_and_provenance(page: Page, served: Served) -> None:
    _signed_in(page, served)
    _search(page, "permalink:plugins/command-palette")
    expect(page.locator("#mode")).to_have_text("facet")
    expect(page.locator(HITS)).to_have_count(4)
    assert {p.split("/")[0] for p in _paths(page)} == {"en", "de", "es", "tr"}
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/v1/search") else None)
    page.fill("#q", "")
    page.keyboard.type("status:seedling")  # 15 keystrokes, one debounced search (a few on a very busy machine)
    expect(page.locator(f"{HITS} .label")).to_have_text(["[seedling]", "[excerpt]"])
    assert 1 <= len(asked) < 8, asked
    page.fill("#q", "Command palette plugin")
    concept = page.locator(HITS, has_text=served.concept)
    expect(concept.locator(".provenance blockquote")).to_have_text(f"“{QUOTED}”")
    expect(concept.locator(".provenance .sources li")).to_have_text(["en/Plugins/Command palette.md"])
    expect(concept.locator(".provenance .trace")).to_contain_text("intact")
    page.fill("#q", "colour:blue")
    expect(page.locator("#error")).to_contain_text("no facet this vault knows")


def test_semantic_mode_rung_and_paging(page: Page, served: Served) -> None:
    _signed_in(page, served)
    _search(page, "?run a command from the keyboard")
    expect(page.locator("#mode")).to_have_text("semantic")
    expect(page.locator("#where")).to_have_text("1–10")
    first_page = _paths(page)
    assert not page.locator("text=/score|similarity/i").count()
    page.keyboard.press("PageDown")
    expect(page.locator("#where")).to_contain_text("11–")
    assert not set(first_page) & set(_paths(page))
    page.keyboard.press("PageUp")
    expect(page.locator("#where")).to_have_text("1–10")
    assert _paths(page) == first_page
    page.click("#next")
    expect(page.locator("#where")).to_contain_text("11–")
    page.check('input[name="rung"][value="body"]')
    expect(page.locator("#where")).to_have_text("1–10")  # a new rung starts from the first hit
    expect(page.locator(f"{HITS} .trail").first).not_to_be_empty()
    hit = page.locator(HITS).first
    heading = page.evaluate("() => document.querySelector('#hits li .trail').textContent.split(' > ').pop()")
    page.keyboard.press("Enter")
    opened = page.locator("body").get_attribute("data-opened") or ""
    assert opened.startswith("obsidian://open?vault=vault&file=")
    assert hit.locator(".path").inner_text().removesuffix(".md") in opened.replace("%2F", "/").replace("%20", " ")
    if "%23" in opened:
        assert opened.endswith(quote(heading, safe=""))


@pytest.mark.parametrize(
    ("query", "page_path"),
    [
        ("?record audio in a note", "en/Plugins/Audio recorder.md"),
        ("?Audioaufnahmen in einer Notiz", "de/Erweiterungen/Audio-Rekorder.md"),
        ("?grabar audio en una nota", "es/Complementos/Grabadora de audio.md"),
        ("?not içinde ses kaydı", "tr/Eklentiler/Ses kaydedicisi.md"),
    ],
)
def test_a_query_in_each_language(page: Page, served: Served, query: str, page_path: str) -> None:
    _signed_in(page, served)
    _search(page, query)
    expect(page.locator(HITS).first).to_be_visible()
    assert page_path in _paths(page)


def test_api_stops_answering_mid_session(page: Page, served: Served) -> None:
    local = served.settings.model_copy(
        update={"local_only": True, "api_keys_file": served.settings.index_path.parent / "none.json"}
    )
    with serve(create_app(local)) as url:
        page.goto(f"{url}/search")
        expect(page.locator("#q")).to_be_focused()  # local-only on loopback: no key asked
        expect(page.locator("#key-form")).to_be_hidden()
        _search(page, "Befehlspalette")
        expect(page.locator(HITS)).to_have_count(1)
    page.fill("#q", "Komut")
    expect(page.locator("#error")).to_contain_text(f"The Sentinel API at {url} does not answer")
    expect(page.locator(HITS)).to_have_count(1)  # what was found before stays, marked as from before
