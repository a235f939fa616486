"""The eval vault is found through SENTINEL_EVAL_VAULT; absent, its tests skip saying where to get it, and fail
under CI (which has it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.eval_data import EVAL_VAULT_SETTING, REPO_ROOT, eval_data_file, eval_vault_path, require_eval_vault


def test_the_default_is_shared_eval_beside_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(EVAL_VAULT_SETTING, raising=False)
    assert eval_vault_path() == REPO_ROOT.parent / "shared" / "eval" / "obsidian-help"
    assert eval_data_file("queries.tsv") == REPO_ROOT.parent / "shared" / "eval" / "queries.tsv"


def test_the_setting_moves_the_vault_and_the_files_beside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = tmp_path / "eval" / "help"
    (vault / "en").mkdir(parents=True)
    (vault / "en" / "Start.md").write_text("# Start\n")
    monkeypatch.setenv(EVAL_VAULT_SETTING, str(vault))
    monkeypatch.delenv("CI", raising=False)
    assert require_eval_vault() == vault
    assert eval_data_file("queries.tsv") == tmp_path / "eval" / "queries.tsv"


def test_an_absent_vault_skips_saying_where_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EVAL_VAULT_SETTING, str(tmp_path / "nowhere"))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"nowhere.*SENTINEL_EVAL_VAULT.*obsidianmd/obsidian-help"):
        require_eval_vault()


def test_an_absent_vault_fails_under_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()  # a folder without pages is as absent as no folder
    monkeypatch.setenv(EVAL_VAULT_SETTING, str(tmp_path / "empty"))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"empty.*CI must run these tests"):
        require_eval_vault()
