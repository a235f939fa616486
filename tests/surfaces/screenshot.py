"""The screenshot in docs/images/search-page.png: the search page over the eval slice, a real Semantic query.

    PYTHONPATH=$PWD/src:$PWD .venv/bin/python -m tests.surfaces.screenshot docs/images/search-page.png

The same slice, model, API and Chromium as the tests (conftest.py); it writes only the file it is given.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.keys import Scope, create_key
from sentinel.paths import keys_path
from sentinel.search import embed_pending
from services.api.app import create_app
from tests.support.embedder import E5_DIR
from tests.support.eval_data import copy_pages
from tests.support.servers import serve
from tests.support.surfaces import CHROMIUM, CHROMIUM_ARGS, SLICE, settings_in

QUERY = "?how do I get back an older version of a note"


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as root:
        settings = settings_in(Path(root))
        copy_pages(SLICE, settings.vault)
        db = open_index(settings)
        sync(settings, db)
        embed_pending(db, OnnxEmbedder(E5_DIR, threads=2, batch=32))
        db.close()
        _, key = create_key(keys_path(settings), Scope.READ, "screenshot")
        with serve(create_app(settings)) as url, sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1100, "height": 640})
            page.goto(f"{url}/search")
            page.fill("#key", key)
            page.press("#key", "Enter")
            page.wait_for_selector("#key-form", state="hidden")
            page.fill("#q", QUERY)
            page.wait_for_selector("#hits li[role=option]")
            page.keyboard.press("ArrowDown")
            page.screenshot(path=str(out))
            browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
