"""`sentinel export-vectors`: the summary leg as the plugin's compact store (its search is checked against the
server's in tests/surfaces/test_plugin.py, in node)."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.paths import vectors_export_dir
from sentinel.search import embed_pending
from sentinel.search.export import FORMAT
from sentinel.search.vectors import restore
from tests.support.vault import WriteVault

PAGES = {
    "notes/Kettle.md": "# Kettle\n\nThe kettle boils water for tea.",
    "notes/Garden.md": "# Garden\n\nTomatoes need water every morning.",
    "notes/Bahn.md": "# Bahn\n\nDer Zug fährt um acht Uhr ab.",
}


def _export(settings) -> object:  # type: ignore[no-untyped-def]
    args = ["export-vectors", f"--vault={settings.vault}", f"--index={settings.index_path}", "--json"]
    return CliRunner().invoke(app, args)


def test_nothing_embedded_is_refused_naming_the_command(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    sync(settings, open_index(settings))
    result = _export(settings)
    assert result.exit_code != 0 and "sentinel embed" in result.output  # type: ignore[attr-defined]
    assert not (vectors_export_dir(settings) / "manifest.json").exists()


def test_the_store_holds_every_page_vector_as_the_index_does(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    result = _export(settings)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    folder = vectors_export_dir(settings)
    assert folder == settings.vault.resolve() / ".sentinel" / "vectors"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format"] == FORMAT and manifest["query_prefix"] == "query: " and manifest["count"] == 3
    n, dims = manifest["count"], manifest["dims"]
    data = (folder / "vectors.bin").read_bytes()
    assert len(data) == n * dims + n * 4 + n * 2
    scales = np.frombuffer(data[n * dims : n * dims + n * 4], dtype="<f4")
    vectors = restore([data[i * dims : (i + 1) * dims] for i in range(n)], scales.tolist(), dims)
    by_path = {path: vectors[i] for i, (path, _) in enumerate(manifest["pages"])}
    kettle = e5.embed(["Kettle\n\nThe kettle boils water for tea."], "passage").vectors[0]
    assert float(by_path["notes/Kettle.md"] @ kettle) > 0.95  # the page's own summary vector, restored
    assert sorted(by_path) == sorted(PAGES)
