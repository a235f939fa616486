"""The real Obsidian help vault (438 pages in four languages) indexes cleanly and resolves like Obsidian."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.index import queries
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.settings import Settings
from tests.support.eval_data import require_eval_vault


@pytest.fixture(scope="module")
def eval_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    vault = tmp_path_factory.mktemp("eval") / "vault"
    shutil.copytree(require_eval_vault(), vault)
    return Settings(vault=vault, index_path=vault.parent / "index.db", _env_file=None)


def test_eval_vault_indexes_every_page_without_problems(eval_settings: Settings) -> None:
    db = open_index(eval_settings)
    report = sync(eval_settings, db, rebuild=True)
    pages = len(list(Path(eval_settings.vault).rglob("*.md")))
    assert report.added == pages >= 400 and not report.problems
    stats = queries.stats(db)
    assert stats["aliases"] and stats["chunks"] > pages
    # headings in links are kept apart from the page they point at
    row = db.execute("SELECT target, heading, resolved FROM links WHERE heading IS NOT NULL AND resolved IS NOT NULL")
    target, heading, resolved = row.fetchone()
    assert "#" not in target and heading and resolved.endswith(".md")
    # embeds of attachments that are not in the vault never enter the growth queue
    attachments = db.execute("SELECT COUNT(*) FROM links WHERE kind = 'attachment'").fetchone()[0]
    assert attachments > 0
    assert all("." not in r.key.rsplit("/", 1)[-1][-5:] for r in queries.unresolved(db, limit=500))


def test_cli_round_trip_with_json(eval_settings: Settings) -> None:
    runner = CliRunner()
    args = ["--vault", str(eval_settings.vault), "--index", str(eval_settings.index_path), "--json"]
    synced = runner.invoke(app, ["index", "sync", *args])
    assert synced.exit_code == 0, synced.output
    assert json.loads(synced.stdout)["added"] == 0
    stats = json.loads(runner.invoke(app, ["index", "stats", *args]).stdout)
    assert stats["pages"] >= 400
    queue = json.loads(runner.invoke(app, ["index", "unresolved", *args]).stdout)
    assert queue == sorted(queue, key=lambda r: (-r["pages"], -r["links"]))


def test_cli_names_a_missing_or_wrong_vault(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["index", "sync", "--vault", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    file = tmp_path / "file.md"
    file.write_text("x")
    wrong = runner.invoke(app, ["index", "sync", "--vault", str(file)])
    assert wrong.exit_code == 2 and "not a directory" in wrong.output
