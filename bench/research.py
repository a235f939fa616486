"""Research speed: the whole Searcher path over a loopback site serving eval vault pages as real HTML.

    .venv/bin/python -m bench.research [--questions 4] [--model-file model.onnx]

A stand-in SearXNG returns the same result pages for every question (eval pages in en/tr/es/de, the search
tests' slice); each question is researched into a fresh indexed vault with the real e5 model. Printed: pages
fetched per second (fetching alone, and the whole run including extraction, e5 and the record), passages per
question, extraction time per page (median and p95), and the machine's load average (the machine is shared).
Needs `make models` and the eval vault (SENTINEL_EVAL_VAULT).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.tables import print_value_table
from sentinel.embed.onnx import OnnxEmbedder, locate_model_files
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.research.backends import SearxngBackend
from sentinel.research.run import ResearchReport, research
from sentinel.settings import Settings
from tests.support.embedder import E5_DIR
from tests.support.eval_data import eval_vault_path, missing_eval_vault
from tests.support.web_site import LoopbackSite, page_from_markdown, searxng_standin

PAGES = [
    ("en/Plugins/File recovery.md", "en"),
    ("tr/Eklentiler/Dosya Kurtarma.md", "tr"),
    ("de/Erweiterungen/Datenwiederherstellung.md", "de"),
    ("en/Plugins/Command palette.md", "en"),
    ("tr/Eklentiler/Komut Paleti.md", "tr"),
    ("es/Complementos/Paleta de comandos.md", "es"),
    ("en/Plugins/Audio recorder.md", "en"),
    ("es/Complementos/Grabadora de audio.md", "es"),
    ("en/Plugins/Random note.md", "en"),
    ("en/User interface/Hotkeys.md", "en"),
]
QUESTIONS = [
    "How do I restore a previous version of a note from a File recovery snapshot?",
    "How do I run a command from the command palette?",
    "How do I record audio into a note?",
    "How do I open a random note?",
    "How do I change a hotkey?",
    "Where are File recovery snapshots stored?",
]


def _one(question: str, site: LoopbackSite, search_url: str, e5: OnnxEmbedder) -> ResearchReport:
    with tempfile.TemporaryDirectory() as folder:
        vault = Path(folder) / "vault"
        (vault / "notes").mkdir(parents=True)
        (vault / "notes/start.md").write_text("# Start\n", encoding="utf-8")
        settings = Settings(vault=vault, _env_file=None)
        settings.research.allow_private_addresses = True  # the site is on loopback
        db = open_index(settings)
        sync(settings, db)
        db.close()
        return research(question, settings, embedder=e5, backend=SearxngBackend(search_url, 10))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=4, help="questions researched (at most 6)")
    parser.add_argument("--model-file", default="", help="ONNX file in the e5 folder (default: the settings')")
    args = parser.parse_args()
    if problem := missing_eval_vault():
        raise SystemExit(problem)
    locate_model_files(E5_DIR)
    e5 = OnnxEmbedder(E5_DIR, threads=2, batch=32, model_file=args.model_file)
    pages = [page_from_markdown(eval_vault_path() / rel, lang) for rel, lang in PAGES]
    reports: list[ResearchReport] = []
    started = time.perf_counter()
    with LoopbackSite(pages) as site:
        results = [(site.page_url(n), page.title) for n, page in enumerate(pages)]
        with searxng_standin(results) as search:
            for question in QUESTIONS[: max(1, min(args.questions, len(QUESTIONS)))]:
                reports.append(_one(question, site, search.url, e5))
    wall = time.perf_counter() - started
    fetches = [s for r in reports for s in r.fetch_seconds]
    extractions = sorted(s for r in reports for s in r.extract_seconds)
    p95 = extractions[min(len(extractions) - 1, int(0.95 * len(extractions)))]
    print_value_table(
        f"research over a loopback site ({len(pages)} pages, {len(reports)} questions)",
        [
            ("pages fetched/s (fetching alone)", f"{len(fetches) / sum(fetches):.1f}"),
            ("pages researched/s (whole run: fetch, extract, e5, record)", f"{len(fetches) / wall:.2f}"),
            ("passages per question (median, min-max)", _spread([r.added for r in reports])),
            ("pages giving passages per question (median)", f"{statistics.median(r.used for r in reports):g}"),
            ("extraction ms per page (median)", f"{statistics.median(extractions) * 1000:.1f}"),
            ("extraction ms per page (p95)", f"{p95 * 1000:.1f}"),
            ("seconds per question (median)", f"{statistics.median(r.seconds for r in reports):.1f}"),
            ("load average (1 min) after the run", f"{os.getloadavg()[0]:.2f}"),
        ],
    )


def _spread(values: list[int]) -> str:
    return f"{statistics.median(values):g} ({min(values)}-{max(values)})"


if __name__ == "__main__":
    main()
