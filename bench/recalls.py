"""The browser check's save-and-recall turns replayed without the browser: each "save this: …" turn of the turn
files that a later turn asks back (its ``page`` a piece of the saved words), saved into a copy of the eval vault
and asked back in a new chat, through ``answer_turn`` with the small Qwen, as Open WebUI's Sentinel model asks.

It prints, per recall, the answer a person reads and whether it holds the saved sentence word for word (what a
person expects of their own words) and the row's fact. The save is made alone (its chat's earlier turns are not
replayed: an explicit "save this: …" keeps only its own words). ``--drafts FILE`` captures the recall's drafts
(bench/drafts.py). The vault and index are copied into ``--scratch`` first: nothing shared is written.

    .venv/bin/python -m bench.recalls --scratch /work/scratch/NAME bench/browser_turns*.tsv
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from bench import drafts
from bench.answers import synced_context
from bench.browser_turns import Turn as Row
from bench.browser_turns import load_turns
from sentinel.answer import Turn, answer_turn
from sentinel.answer.acts import request_words
from sentinel.providers import provider_for
from sentinel.search import embed_pending
from sentinel.settings import ProviderSettings
from tests.support.eval_data import eval_vault_path
from tests.support.llama import MODEL_ALIAS, llama_server

ROOT = Path(__file__).resolve().parents[1]
CTX = 4096


def recalls(rows: list[Row]) -> list[tuple[Row, Row]]:
    """Each save turn with the later turn that asks its words back (that turn's ``page`` is a piece of them)."""
    saves = [row for row in rows if row.is_save and request_words(row.text)]
    return [(save, row) for row in rows for save in saves if row.page and row.page in save.text and row.n != save.n]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--scratch", type=Path, required=True, help="a folder of yours: the vault and index copy")
    parser.add_argument("--index", type=Path, default=ROOT / ".cache" / "bench" / "eval-index.db")
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument("--drafts", type=Path, help="append the recalls' drafts and packets here (bench/drafts.py)")
    args = parser.parse_args(argv)
    pairs = [(path, pair) for path in args.files for pair in recalls(load_turns(path))]
    vault, index = args.scratch / "vault", args.scratch / "eval-index.db"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(eval_vault_path(), vault)
    shutil.copy2(args.index, index)
    ctx = synced_context(vault, index, args.embed_model)
    print(f"{len(pairs)} recalls over a copy of the eval vault in {vault}; the model: {MODEL_ALIAS}, ctx {CTX}")
    verbatim = facts = 0
    with llama_server(ctx=CTX) as url, drafts.recording(args.drafts, "warm"):
        provider = provider_for(ProviderSettings(kind="openai", base_url=url, model=MODEL_ALIAS, num_ctx=CTX), "bench")
        for number, (path, (save, recall)) in enumerate(pairs, start=1):
            saved = answer_turn(ctx, provider, Turn([{"role": "user", "content": save.text}], chat_id=f"save{number}"))
            embed_pending(ctx.writer(), ctx.embedder)  # as the stack's worker does within seconds of a write
            drafts.label_of(f"{path.stem}:{recall.n}")
            started = time.monotonic()
            answer = answer_turn(
                ctx, provider, Turn([{"role": "user", "content": recall.text}], chat_id=f"recall{number}"), MODEL_ALIAS
            )
            words = request_words(save.text).rstrip(".")
            whole, fact = words in answer.answer, recall.fact_right(answer.answer)
            verbatim, facts = verbatim + whole, facts + fact
            print(
                f"{path.name} row {recall.n} ({time.monotonic() - started:.0f}s): saved {saved.saved}; "
                f"verbatim={whole} fact={fact} written={answer.answered}\n  asked: {recall.text}\n"
                f"  reads: {' '.join(answer.answer.split())}\n  notes: {answer.notes}",
                flush=True,
            )
    print(f"saved words shown whole: {verbatim}/{len(pairs)}; fact right: {facts}/{len(pairs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
