"""End to end: `sentinel chat` with the real Qwen2.5-Coder-0.5B through llama.cpp, over eval-vault pages.

The command runs as a user runs it (its own process, questions and commands on stdin). The model must call
search through the harness, the real registry must return the page that holds the answer, and the model must
answer from it; /steps, /budget and /save must show the turn.

A 0.5B model needs its own short system prompt (``small_model_prompt.txt``): under Open WebUI's prompt it calls
search and then writes tool calls instead of an answer (measured while building this). One tool call per turn
for the same reason: its second call borrows arguments from other tools' schemas.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.settings import Settings
from tests.support.chat_cli import chat_command, chat_env
from tests.support.eval_data import require_eval_vault
from tests.support.llama import LLAMA_CTX

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
PAGES = [
    "en/Obsidian Sync/Security and privacy.md",
    "en/Licenses and payment/Catalyst license.md",
    "en/Editing and formatting/Tags.md",
]
ANSWER_PAGE = "Catalyst license"  # the summary rung names a page by its shortest unique link
QUESTION = "Search my notes: what is the Catalyst license?"


def eval_vault(root: Path) -> Settings:
    """A few eval-vault pages in a fresh vault, indexed (no embedder: search is lexical-only here)."""
    vault = root / "vault"
    for page in PAGES:
        target = vault / page.removeprefix("en/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(require_eval_vault() / page, target)
    settings = Settings(vault=vault, index_path=root / "index.db", _env_file=None)
    sync(settings, open_index(settings))
    return settings


def run_chat(settings: Settings, base_url: str, stdin: str) -> str:
    env = chat_env(160, SENTINEL_SEARCH_HITS="3")
    command = chat_command(settings, base_url, LLAMA_CTX)
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=REPO, env=env, timeout=540)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_real_model_answers_from_the_vault_by_calling_search(tmp_path: Path, llama_url: str) -> None:
    settings = eval_vault(tmp_path)
    out = run_chat(settings, llama_url, f"{QUESTION}\n/steps\n/steps 1\n/budget\n/save Catalyst\n/quit\n")
    print(out)
    # Loud at start: no embedder, so search is lexical-only.
    assert "SEARCH WILL BE LEXICAL-ONLY: no embedder is configured" in out
    # The model called search through the harness and the real index returned the page with the answer ...
    assert re.search(r"^  1\. search\(query=", out, re.MULTILINE), out
    step_one = out[out.index("step 1: search") :]
    assert ANSWER_PAGE in step_one and "[OK]" in step_one
    # ... and it answered from that page's text.
    answer = out[out.index("model> ") : out.index("turn 1:")]
    assert "one-time purchase" in answer, answer
    assert "turn 1: tool calls" in out
    # /budget: the window and the schemas, as the server counted them at the start.
    assert f"context window {LLAMA_CTX:,} tokens" in out
    assert "tool schemas (7)" in out and "measured by the server" in out
    assert "session: 1 turn(s), 2 model call(s)" in out
    # /save wrote the transcript and the note as the API's capture does; the note keeps the answer.
    assert "[OK] created notes/Catalyst.md" in out
    assert "one-time purchase" in (settings.vault / "notes/Catalyst.md").read_text()
    (transcript,) = (settings.vault / "conversations").glob("*.md")
    assert QUESTION in transcript.read_text()
