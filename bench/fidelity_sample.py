"""The definition gate on the real small model: one maintenance pass over a mixed-language sample of the eval
vault (``--pages`` pages, spread evenly over en/de/es/tr), then every concept page it wrote with its quoted
sentences, and the pass's ledger. Whether each sentence defines its name is for a person to judge; this prints
what to judge.

    SENTINEL_TEST_LLAMA_THREADS=1 nice -n 5 .venv/bin/python -u -m bench.fidelity_sample --pages 40 --minutes 85

One llama.cpp thread on a shared machine: the wheel's build syncs its threads through OpenMP, and at load 6-9
two threads had not finished the first page after two minutes, where one read it in 28 s (docs/maintain.md).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import frontmatter

from sentinel.gates import definition, derived
from sentinel.gates.verbatim import normalise
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.maintain import analysis, ledger, queue
from sentinel.maintain.concepts import defining_mentions
from sentinel.maintain.models import Models
from sentinel.maintain.run import run_pass
from sentinel.paths import ledger_dir
from sentinel.providers import provider_for
from sentinel.settings import ProviderSettings, Settings
from tests.support.eval_data import eval_vault_path, missing_eval_vault
from tests.support.llama import LLAMA_CTX, MODEL_ALIAS, llama_server


def sample(pages: int) -> list[Path]:
    """``pages`` pages, the same share from each language, spread evenly over each one's sorted pages."""
    chosen: list[Path] = []
    languages = sorted(p for p in eval_vault_path().iterdir() if p.is_dir())
    for language in languages:
        files = sorted(language.rglob("*.md"))
        share = pages // len(languages)
        step = max(1, len(files) // share)
        chosen += files[::step][:share]
    return chosen


SET_ASIDE = "set aside unanalysed by bench/fidelity_sample --set-aside (the bench's time ran out)"


def set_aside(settings: Settings) -> list[str]:
    """Mark every page still awaiting analysis as failed, saying why (``--retry-failed`` queues them again)."""
    db = open_index(settings)
    sync(settings, db)
    aside = []
    for due in queue.awaiting_analysis(db):
        (page_hash,) = db.execute("SELECT hash FROM pages WHERE path = ?", (due.path,)).fetchone()
        analysis.store(db, analysis.Outcome(due.path, page_hash, "failed", reason=SET_ASIDE), MODEL_ALIAS)
        aside.append(due.path)
    return aside


def askable(settings: Settings) -> dict[str, list[tuple[str, str]]]:
    """Per growth-queue name, the distinct sentences of its paragraphs that pass the definition gate's code
    checks (the only ones the model is asked about): what a person judges when no page was written."""
    db = open_index(settings)
    found: dict[str, list[tuple[str, str]]] = {}
    for entry in derived.growth_queue(db, settings.concept_pages_per_pass).kept:
        seen: dict[str, tuple[str, str]] = {}
        for mention in defining_mentions(db, entry.name, settings.concept_max_paragraphs):
            for sentence in mention.sentences:
                if definition.worth_asking(sentence, entry.name, mention.language):
                    seen.setdefault(normalise(sentence), (mention.source, sentence))
        if seen:
            found[entry.name] = list(seen.values())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--out", type=Path, default=Path("/tmp/fidelity-sample"))
    parser.add_argument("--pairs", type=int, default=15, help="name pairs asked per resolution round")
    parser.add_argument("--resume", action="store_true", help="keep --out's vault and index: pages analysed stay")
    parser.add_argument(
        "--set-aside",
        action="store_true",
        help="with --resume: record the pages not yet analysed as failed (named so), so the pass goes on to name "
        "resolution and concept pages; their text still counts as the concepts' sources",
    )
    args = parser.parse_args()
    if reason := missing_eval_vault():
        raise SystemExit(reason)
    vault = args.out / "vault"
    if not (args.resume and vault.is_dir()):
        shutil.rmtree(args.out, ignore_errors=True)
        for source in sample(args.pages):
            target = vault / source.relative_to(eval_vault_path())
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    settings = Settings(vault=vault, index_path=args.out / "index" / "index.db", _env_file=None)
    settings = settings.model_copy(
        update={"concept_pages_per_pass": 60, "concept_max_paragraphs": 12, "resolve_max_pairs": args.pairs}
    )
    if args.set_aside:
        aside = set_aside(settings)
        print(f"set aside unanalysed ({len(aside)}): {', '.join(aside) or 'none'}")
    with llama_server(ctx=LLAMA_CTX) as url:
        model = provider_for(ProviderSettings(kind="openai", base_url=url, model=MODEL_ALIAS, num_ctx=LLAMA_CTX))
        report = run_pass(
            settings, open_index(settings), models=lambda: Models(model, model, MODEL_ALIAS), minutes=args.minutes
        )
    print(f"\nanalysed {report.analysed}, failed {report.failed}, stopped: {report.stopped or 'no'}")
    print(f"concept pages written: {len(report.concept_pages_written)}")
    for written in report.concept_pages_written:
        page = frontmatter.loads((vault / written).read_text(encoding="utf-8"))
        print(f"\n{written}")
        quotes = page.metadata.get("quotes")
        for quote in quotes if isinstance(quotes, list) else []:
            print(f"  [{quote['source']}] {quote['sentence']}")
    print("\nwhat the code checks let through to the model (every name left in the growth queue):")
    for name, sentences in askable(settings).items():
        print(f"  {name}")
        for where, sentence in sentences:
            print(f"    [{where}] {sentence}")
    if report.ledger:
        print(f"\nledger {ledger_dir(settings) / report.ledger}.md:\n")
        print(ledger.render(settings, report.ledger))
    else:
        print("\nledger: none (the pass wrote no page and no alias)")


if __name__ == "__main__":
    main()
