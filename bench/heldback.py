"""Held-back pages: concept pages the pass writes, with the small real model, for names whose page was removed.

    .venv/bin/python -m bench.heldback [--threads 1] [--minutes 30]

A copy of the eval vault with pages removed (every page of one title, in every language folder, so the name
reaches nothing and enters the growth queue): DEFINABLE are names a page other than their own defines (found by
the definition-shape rule over every other page, each sentence read by hand: "Core plugins are built-in plugins
that come with Obsidian."), UNDEFINABLE names that other pages mention, in many paragraphs, and none defines (the
rule finds no sentence of definitional shape; not every mention was read by hand). The copy is indexed, and
each held-back name that links still reach is put through the concept step exactly as the pass does
(the spelling check of ``concepts.write_concept_pages``, then ``concepts._one``: mentions, the shape rule, the
model's two questions, the definition gate); analysis is not
run (it does not feed the concept step, and on two shared cores it takes an hour). Every page written is traced
(``sentinel trace``: each quote found verbatim in its source at its recorded locator). Prints a table: pages
written for definable names (recall; goal >= 50%), for undefinable ones (goal 0), quotes not intact (goal 0).
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path
from tempfile import TemporaryDirectory

from sentinel.index.db import open_index
from sentinel.index.queries import unresolved
from sentinel.index.sync import sync
from sentinel.maintain import concepts, trace
from sentinel.maintain.concepts import ConceptReport
from sentinel.providers import provider_for
from sentinel.settings import ProviderSettings, Settings
from sentinel.vault.links import link_key
from sentinel.vault.name_words import variant_key
from tests.support.eval_data import eval_vault_path
from tests.support.llama import MODEL_ALIAS, llama_server

CTX = 4096
# Another page than the name's own carries a sentence saying what it is, under the name or another spelling of it
# (the Glossary's "An **attachment** is ..."), and no other page's title spells the name (Workspace beside
# Workspaces is another thing). Found by an exhaustive scan, every title against every sentence of every other
# page (``bench.definers``; the out-of-page rows of tests/maintain/data/definitions_set.tsv, each read by hand):
# the eleven such names in the eval vault, plus Alias, kept from the first round (the title Aliases spells it, and
# other pages declare it as an alias, so it never enters the growth queue). The 20 the issue asks for do not exist.
DEFINABLE = [
    "Alias",
    "Core plugins",
    "Markdown",
    "Ribbon",
    "Community plugins",
    "Community-Erweiterungen",
    "Obsidian-Erweiterungen",
    "Configuration folder",
    "Konfigurationsordner",
    "Tags",
    "Hotkeys",
    "Attachments",
]
UNDEFINABLE = [
    "Importer",
    "Search",
    "Settings",
    "Sidebar",
    "Filters",
    "Command palette",
    "Befehlspalette",
    "Importprogramm",
    "Paleta de comandos",
    "Themes",
    "Barra lateral",
    "Properties",
]


def held_back_copy(folder: Path) -> Path:
    vault = folder / "vault"
    shutil.copytree(eval_vault_path(), vault, ignore=shutil.ignore_patterns(".*"))
    titles = {name.casefold() for name in [*DEFINABLE, *UNDEFINABLE]}
    for page in list(vault.rglob("*.md")):
        if page.stem.casefold() in titles:
            page.unlink()
    return vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=30.0, help="stop asking after this long")
    args = parser.parse_args()
    with TemporaryDirectory() as folder:
        vault = held_back_copy(Path(folder))
        settings = Settings(vault=vault, index_path=Path(folder) / "index.db", _env_file=None)
        settings = settings.model_copy(update={"concept_max_paragraphs": 12})
        db = open_index(settings)
        sync(settings, db)
        queue = {entry.key: entry for entry in unresolved(db, limit=10_000)}
        spelt = concepts.spellings(db)
        deadline = time.monotonic() + args.minutes * 60
        report, outcomes = ConceptReport(), {}
        print(f"load average at start: {Path('/proc/loadavg').read_text().split()[:3]}", flush=True)
        started = time.monotonic()
        with llama_server(ctx=CTX, threads=args.threads) as base_url:
            model = provider_for(ProviderSettings(kind="openai", base_url=base_url, model=MODEL_ALIAS, num_ctx=CTX))
            for name in [*DEFINABLE, *UNDEFINABLE]:
                entry = queue.get(link_key(name))
                if entry is None:
                    outcomes[name] = "not in the growth queue (no link reaches for it)"
                elif twin := spelt.get(variant_key(name)):
                    outcomes[name] = f"left alone: another spelling of {twin}'s name (as the pass does)"
                elif time.monotonic() > deadline:
                    outcomes[name] = "not reached: time budget spent"
                else:
                    try:
                        line = concepts._one(settings, db, entry, lambda: model, report, lambda: False)
                    except concepts.BudgetSpent:
                        line = "not decided"
                    outcomes[name] = line.split(": ", 1)[1]
                print(f"  {name}: {outcomes[name]}", flush=True)
        seconds = time.monotonic() - started
        written = {Path(p).stem: p for p in report.written}
        traces = {p: trace.trace_page(settings, p) for p in report.written}
        broken = sum(1 for t in traces.values() for q in t.quotes if not q.intact)
        quotes = sum(len(t.quotes) for t in traces.values())
        hits = [n for n in DEFINABLE if n in written]
        wrong = [n for n in UNDEFINABLE if n in written]
        print(f"\nheld-back pages, Qwen2.5-Coder-0.5B Q4_K_M, llama.cpp {args.threads} thread(s), {seconds:.0f} s\n")
        print("| held back | names | concept pages written | goal |")
        print("|---|---|---|---|")
        print(f"| definable | {len(DEFINABLE)} | {len(hits)} ({100 * len(hits) / len(DEFINABLE):.0f}%) | >= 50% |")
        print(f"| undefinable | {len(UNDEFINABLE)} | {len(wrong)} | 0 |")
        print(f"| quotes not intact (sentinel trace) | {quotes} quotes | {broken} | 0 |")
        print(f"\nmodel calls: {len(report.calls)}")
        for path, page_trace in traces.items():
            print(f"\n{path}: {'BROKEN' if page_trace.broken else 'intact'}")
            for quote in page_trace.quotes:
                print(f"  [{quote.state}] {quote.sentence}  ({quote.source})")
        db.close()


if __name__ == "__main__":
    main()
