"""`sentinel search` and `sentinel embed` from the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from tests.support.embedder import E5_DIR
from tests.support.vault import WriteVault

PAGES = {
    "notes/Kettle.md": "---\nstatus: seedling\n---\n# Kettle\n\n## Care\n\nDescale the kettle every 30 days.",
    "sources/Descaling.md": "# Descaling\n\nCitric acid descales a kettle.",
}


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout


def _indexed(vault_settings: WriteVault) -> list[str]:
    settings = vault_settings(PAGES)
    where = ["--vault", str(settings.vault), "--index", str(settings.index_path)]
    assert _run("index", "sync", *where)[0] == 0
    return where


def test_search_json_is_one_object_per_hit_in_rank_order_without_scores(vault_settings: WriteVault) -> None:
    code, out = _run("search", "descale kettle", "--rung", "body", "--json", "--legs", *_indexed(vault_settings))
    assert code == 0, out
    data = json.loads(out)
    # The seedling page matches better but is ranked down.
    assert [h["path"] for h in data["hits"]] == ["sources/Descaling.md", "notes/Kettle.md"]
    kettle = data["hits"][1]
    assert {k: kettle[k] for k in ("path", "heading", "trail", "rung", "text", "labels", "legs")} == {
        "path": "notes/Kettle.md",
        "heading": "Care",
        "trail": "Kettle > Kettle > Care",
        "rung": "body",
        "text": "Descale the kettle every 30 days.",  # the chunk the model would see, verbatim
        "labels": ["seedling"],
        "legs": ["lexical"],
    }
    assert any("wording only" in note for note in data["notes"])  # no embedder configured: said so


def test_search_json_summary_hits_carry_their_summary_line(vault_settings: WriteVault) -> None:
    code, out = _run("search", "descale kettle", "--json", *_indexed(vault_settings))
    assert code == 0, out
    (hit,) = json.loads(out)["hits"]  # the source page is not on the summary rung
    assert hit["path"] == "notes/Kettle.md" and hit["rung"] == "summary"
    assert hit["text"] == "Descale the kettle every 30 days." and "legs" not in hit


def test_search_in_the_terminal_shows_the_note_and_labels(vault_settings: WriteVault) -> None:
    code, out = _run("search", "kettle", *_indexed(vault_settings))
    assert code == 0, out
    assert "[note]" in out and "[seedling]" in out and "notes/Kettle.md" in out
    assert "sources/Descaling.md" not in out  # the summary rung leaves sources out


def test_a_bad_request_fails_with_the_reason(vault_settings: WriteVault) -> None:
    result = CliRunner().invoke(app, ["search", "kettle", "--rung", "pages", *_indexed(vault_settings)])
    assert result.exit_code == 2 and "rung must be" in result.stderr


@pytest.mark.slow
def test_embed_then_search_by_meaning(vault_settings: WriteVault) -> None:
    where = [*_indexed(vault_settings), "--embed-model", str(E5_DIR)]
    code, out = _run("embed", "--json", *where)
    assert code == 0, out
    assert json.loads(out)["chunks"] == 2
    code, out = _run("embed", "--json", *where)
    assert json.loads(out)["chunks"] == 0  # nothing changed: nothing embedded
    code, out = _run("search", "how to remove limescale", "--json", "--legs", *where)
    data = json.loads(out)
    assert data["notes"] == [] and "semantic-chunks" in data["legs_used"]
    assert data["hits"][0]["path"] == "notes/Kettle.md"
