"""Where the eval data lies: the one setting SENTINEL_EVAL_VAULT, for every test and bench that reads it.

The eval vault (the public Obsidian help vault, 438 pages in en/tr/es/de) and its labelled files
(queries.tsv, answers.tsv beside it) are not part of the repository. Default: ``../shared/eval/obsidian-help``
beside the repository root, where this project's machines and CI keep it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

EVAL_VAULT_SETTING = "SENTINEL_EVAL_VAULT"
REPO_ROOT = Path(__file__).resolve().parents[2]
WHERE_TO_GET = (
    "get the Markdown pages under en/, tr/, es/ and de/ of https://github.com/obsidianmd/obsidian-help "
    "(commit fa179e91e86eaff5859226cc045c81000d64e3cd) and point SENTINEL_EVAL_VAULT at that folder "
    "(queries.tsv and answers.tsv lie beside it)"
)


def eval_vault_path() -> Path:
    """The eval vault: SENTINEL_EVAL_VAULT, else ../shared/eval/obsidian-help beside the repository."""
    configured = os.environ.get(EVAL_VAULT_SETTING, "").strip()
    if configured:
        return Path(configured).expanduser().resolve()
    return REPO_ROOT.parent / "shared" / "eval" / "obsidian-help"


def eval_data_file(name: str) -> Path:
    """A labelled file of the eval data (queries.tsv, answers.tsv): beside the eval vault."""
    return eval_vault_path().parent / name


def missing_eval_vault() -> str:
    """Why the eval vault cannot be used, or "" when it can."""
    vault = eval_vault_path()
    if not vault.is_dir() or not any(vault.rglob("*.md")):
        return f"eval vault not found at {vault} ({EVAL_VAULT_SETTING}): {WHERE_TO_GET}"
    return ""


def require_eval_vault() -> Path:
    """The eval vault for a test; absent, the test is skipped saying where to get it, except under CI
    (CI=true), which has it: there a skip would hide that these tests never ran, so it fails."""
    if reason := missing_eval_vault():
        if os.environ.get("CI", "").lower() in {"true", "1"}:
            pytest.fail(f"{reason}; CI must run these tests", pytrace=False)
        pytest.skip(reason)
    return eval_vault_path()


def copy_pages(paths: list[str], vault: Path) -> None:
    """Copy these pages of the eval vault (paths relative to it) into ``vault``, folders and all."""
    for rel in paths:
        target = vault / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(require_eval_vault() / rel, target)
