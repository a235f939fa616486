"""The Obsidian plugin: `npm ci && npm run build` gives main.js, and its node tests pass against the real API.

The plugin's logic (mode parsing, Quick and Facet over a stood-in metadata cache, the API client and its error
states) runs under node's test runner (obsidian-plugin/test/); its API tests talk to the API served here over
the eval slice. node_modules comes from the committed package-lock.json when it is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.paths import vectors_export_dir
from sentinel.search.vectors import nearest
from sentinel.search.view import current_view
from sentinel.settings import Settings
from tests.support.embedder import E5_DIR
from tests.support.surfaces import Served

# Ten queries and more in the slice's four languages, for the on-device search against the server's leg.
DEVICE_QUERIES = [
    "record audio in a note",
    "run a command from the keyboard",
    "get back an older version of a note",
    "insert a template into a note",
    "Audioaufnahmen in einer Notiz",
    "Befehle über die Tastatur ausführen",
    "ältere Version einer Notiz wiederherstellen",
    "grabar audio en una nota",
    "abrir una nota aleatoria",
    "not içinde ses kaydı",
    "rastgele bir not aç",
]

PLUGIN = Path(__file__).resolve().parents[2] / "obsidian-plugin"


def _npm(*args: str, env: dict[str, str] | None = None, cwd: Path = PLUGIN) -> subprocess.CompletedProcess[str]:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is missing: apt-get install nodejs npm (.ci/run installs them)", pytrace=False)
    return subprocess.run(
        [npm, *args], cwd=cwd, env=env or os.environ.copy(), capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def built() -> Path:
    if not (PLUGIN / "node_modules" / ".package-lock.json").is_file():
        installed = _npm("ci", "--no-audit", "--no-fund")
        assert installed.returncode == 0, installed.stdout + installed.stderr
    build = _npm("run", "build")
    assert build.returncode == 0, build.stdout + build.stderr
    return PLUGIN / "main.js"


def test_build_gives_main_js(built: Path) -> None:
    text = built.read_text()
    assert "open-search" in text and "/v1/search" in text  # the command and the API client, bundled
    assert "sentinel-vectors/1" in text and "InferenceSession" in text  # the on-device search and its runtime
    assert (PLUGIN / "ort-wasm-simd-threaded.wasm").stat().st_size > 1_000_000  # shipped beside main.js


def test_node_tests_pass_against_the_api(built: Path, served: Served) -> None:
    env = {**os.environ, "SENTINEL_TEST_API_URL": served.url, "SENTINEL_TEST_READ_KEY": served.read_key}
    ran = _npm("test", env=env)
    out = ran.stdout + ran.stderr
    assert ran.returncode == 0, out
    assert "ℹ fail 0" in out and "ℹ skipped 2" in out and "ℹ pass 10" in out, out


def test_on_device_semantic_gives_the_server_s_top_5(
    built: Path, surface_vault: tuple[Settings, str], e5: OnnxEmbedder, tmp_path: Path
) -> None:
    """`sentinel export-vectors` writes the store; the plugin's on-device search (onnxruntime-web, the same e5 int8
    model) ranks the same top 5 pages as the server's semantic summary leg for each query, in order."""
    settings, _ = surface_vault
    exported = CliRunner().invoke(
        app, ["export-vectors", f"--vault={settings.vault}", f"--index={settings.index_path}", "--json"]
    )
    assert exported.exit_code == 0, exported.output
    folder = vectors_export_dir(settings)
    db = open_index(settings)
    summaries = current_view(db).summaries
    assert summaries is not None
    paths = dict(db.execute("SELECT rowid, path FROM pages").fetchall())
    cases = [
        {"query": q, "top5": [paths[i] for i in nearest(db, summaries, e5.embed([q], "query").vectors[0], 5)]}
        for q in DEVICE_QUERIES
    ]
    db.close()
    expected = tmp_path / "expected.json"
    expected.write_text(json.dumps(cases, ensure_ascii=False))
    env = {
        **os.environ,
        "SENTINEL_TEST_VECTORS": str(folder),
        "SENTINEL_TEST_MODEL_DIR": str(E5_DIR),
        "SENTINEL_TEST_EXPECTED": str(expected),
    }
    ran = _npm("test", env=env)
    out = ran.stdout + ran.stderr
    assert ran.returncode == 0, out
    assert "ℹ fail 0" in out and "the same top 5 pages as the server" in out, out
    timing = next(line for line in out.splitlines() if "first query" in line)
    size = (PLUGIN / "main.js").stat().st_size
    print(f"plugin main.js {size:,} bytes; {timing.strip()}")


def test_the_plugin_folder_builds_and_tests_on_its_own(built: Path, tmp_path: Path) -> None:
    """A copy of obsidian-plugin/ alone (as a plugin's own repository would be) builds, and with no API running
    its API tests are skipped, saying why, while the rest pass."""
    alone = tmp_path / "sentinel-search"
    ignore = shutil.ignore_patterns("node_modules", "build", "main.js")
    shutil.copytree(PLUGIN, alone, ignore=ignore)
    (alone / "node_modules").symlink_to(PLUGIN / "node_modules")  # the locked install, not a second download
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENTINEL_TEST_")}
    build = _npm("run", "build", env=env, cwd=alone)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (alone / "main.js").stat().st_size > 0
    ran = _npm("test", env=env, cwd=alone)
    out = ran.stdout + ran.stderr
    assert ran.returncode == 0, out
    assert "ℹ fail 0" in out and "ℹ skipped 6" in out and "no API given" in out, out


def test_the_plugin_carries_the_page_s_modes_js_unchanged() -> None:
    home = PLUGIN.parent / "services" / "api" / "static" / "modes.js"
    assert (PLUGIN / "src" / "modes.js").read_bytes() == home.read_bytes(), "run `make plugin` to refresh the copy"
