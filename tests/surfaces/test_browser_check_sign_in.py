"""The browser check (bench/browser_chat.py) stops with what Open WebUI showed when it shows no sign-in form,
instead of a bare Playwright timeout ten minutes later (seen once beside a CI run). Real Chromium, a real page on
loopback that never draws the form."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from playwright.sync_api import Page

from bench import browser_chat
from tests.support.servers import serve

STILL_LOADING = "<html><body><p>Backend starting, please wait</p></body></html>"


def _still_loading() -> FastAPI:
    app = FastAPI()
    app.get("/health")(lambda: {"ok": True})
    app.get("/auth", response_class=HTMLResponse)(lambda: STILL_LOADING)
    return app


def test_no_sign_in_form_stops_the_check_saying_what_was_shown(
    page: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browser_chat, "SIGN_IN_S", 1)
    with serve(_still_loading()) as url, pytest.raises(SystemExit) as stopped:
        browser_chat.sign_in(page, url, tmp_path)
    assert "showed no sign-in form within 1 s" in str(stopped.value)
    assert "Backend starting, please wait" in str(stopped.value)
    assert (tmp_path / "sign-in.png").stat().st_size > 0
