"""Record a real `sentinel chat` session for the docs: the small real model through llama.cpp, eval-vault pages.

    .venv/bin/python -m bench.chat_session [--out docs/chat-session.txt] [--threads 2] [--lexical]

Copies a few pages of the eval vault into a temporary vault, indexes them and (unless --lexical) embeds them
with the e5 model in process, starts the llama.cpp server the tests use (needs `make llm models`), and runs the
real command with questions and slash commands on stdin. The command echoes what it reads from a pipe, so the
transcript reads as typed. It is written to --out; the wall time and the machine's load are printed, because
both phases of the small model slow down several times on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending
from sentinel.settings import Settings
from tests.support.chat_cli import CHAT_LIMITS, chat_command, chat_env
from tests.support.embedder import E5_DIR
from tests.support.eval_data import eval_vault_path
from tests.support.llama import llama_server

REPO = Path(__file__).resolve().parents[1]
PAGES = [
    "en/Obsidian Sync/Security and privacy.md",
    "en/Licenses and payment/Catalyst license.md",
    "en/Editing and formatting/Tags.md",
]
CTX = 4096
# The 0.5B model gets the short prompt and one tool call per turn, as in tests/chat/test_real_model.py.
SESSION = [
    "Search my notes: what is the Catalyst license?",
    "/steps",
    "/steps 1",
    "/budget",
    "Search my notes: which key derivation function does Obsidian Sync use?",
    "/steps",
    "/budget",
    "/save Catalyst license",
    "/quit",
]


def make_vault(root: Path, embed: bool) -> Settings:
    vault = root / "vault"
    for page in PAGES:
        target = vault / page.removeprefix("en/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(eval_vault_path() / page, target)
    settings = Settings(vault=vault, index_path=root / "index.db", _env_file=None)
    db = open_index(settings)
    sync(settings, db)
    if embed:
        embed_pending(db, OnnxEmbedder(E5_DIR, threads=2, batch=32))
    return settings


def record(settings: Settings, base_url: str, embed: bool) -> str:
    env = chat_env(118)
    command = chat_command(settings, base_url, CTX, *([f"--embed-model={E5_DIR}"] if embed else []))
    stdin = "\n".join(SESSION) + "\n"
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=REPO, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"sentinel chat exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    shown = " ".join(command[1:]).replace(str(REPO) + "/", "")
    limits = " ".join(f"{key}={value}" for key, value in CHAT_LIMITS.items())
    header = f"$ {limits} sentinel {shown}"
    text = f"{header}\n{done.stdout}".replace(str(settings.vault.parent), "/tmp/demo")
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "chat-session.txt")
    parser.add_argument("--threads", type=int, default=int(os.environ.get("SENTINEL_TEST_LLAMA_THREADS", "2")))
    parser.add_argument("--lexical", action="store_true", help="Leave the embedder out (shows the warning).")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="chat-demo-") as root:
        settings = make_vault(Path(root), embed=not args.lexical)
        with llama_server(ctx=CTX, threads=args.threads) as base_url:
            text = record(settings, base_url, embed=not args.lexical)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    made = f"# Recorded by `make chat-recording` (bench/chat_session.py), load average {load} on the CPU.\n"
    args.out.write_text(made + text, encoding="utf-8")
    print(f"recorded {args.out} in {time.perf_counter() - started:.0f} s (load average {load})")


if __name__ == "__main__":
    main()
