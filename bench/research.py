"""Research: speed and passage choice over a loopback site serving eval vault pages as real HTML, and how often
the small model's first call is research when the user asks for the web.

    .venv/bin/python -m bench.research [--questions 6] [--model-file model.onnx]
    .venv/bin/python -m bench.research --first-calls     # needs `make llm` and .venv-owui

A stand-in SearXNG returns the same result pages for every question (eval pages in en/tr/es/de, the search
tests' slice); each question is researched into a fresh indexed vault with the real e5 model. Printed: pages
fetched per second (fetching alone, and the whole run including extraction, e5 and the record), passages per
question, extraction time per page (median and p95), and the machine's load average (the machine is shared).
Then passage choice: which pages answer which question is known (``RELEVANT``), so the share of recorded
passages from a relevant page (precision), the relevant pages that gave a passage and the off-topic ones that
did; and, threshold-free, how well each way of embedding the question ranks relevant pages' best passages above
off-topic ones' (AUC within a question and pooled over all, where one threshold must serve every question).
Needs `make models` and the eval vault (SENTINEL_EVAL_VAULT).

``--first-calls`` (bench/research_calls.py): the request Open WebUI sends, through the gateway's first-call
constraint, to the real small Qwen on llama.cpp.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import tempfile
import time
from pathlib import Path

import frontmatter
import numpy as np

from bench import research_calls
from bench.tables import print_value_table
from sentinel.embed.onnx import OnnxEmbedder, locate_model_files
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.research import choose
from sentinel.research.backends import SearxngBackend
from sentinel.research.extract import extract
from sentinel.research.fetch import Fetched
from sentinel.research.record import recorded_passages
from sentinel.research.run import ResearchReport, research
from sentinel.settings import ResearchSettings, Settings
from tests.support.embedder import E5_DIR
from tests.support.eval_data import eval_vault_path, missing_eval_vault
from tests.support.web_site import LoopbackSite, SitePage, page_from_markdown, searxng_standin

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
# The pages (by number in PAGES) that answer each question, in every language they are in.
RELEVANT = [{0, 1, 2}, {3, 4, 5}, {6, 7}, {8}, {9}, {0, 1, 2}]


def _one(question: str, site: LoopbackSite, search_url: str, e5: OnnxEmbedder) -> tuple[ResearchReport, list[str]]:
    """The report of researching ``question`` into a fresh vault, and the URL of every passage recorded."""
    with tempfile.TemporaryDirectory() as folder:
        vault = Path(folder) / "vault"
        (vault / "notes").mkdir(parents=True)
        (vault / "notes/start.md").write_text("# Start\n", encoding="utf-8")
        settings = Settings(vault=vault, _env_file=None)
        settings.research.allow_private_addresses = True  # the site is on loopback
        db = open_index(settings)
        sync(settings, db)
        db.close()
        report = research(question, settings, embedder=e5, backend=SearxngBackend(search_url, 10))
        body = frontmatter.loads((vault / report.relpath).read_text(encoding="utf-8")).content
        return report, [url for url, _ in recorded_passages(body)]


def _choice_rows(urls: list[list[str]], site: LoopbackSite) -> list[tuple[str, str]]:
    """Precision of the passages recorded, and the relevant and off-topic pages that gave one."""
    number = {site.page_url(n): n for n in range(len(PAGES))}
    right = wrong = relevant_used = relevant_all = off_used = off_all = 0
    for relevant, recorded in zip(RELEVANT, urls, strict=False):
        pages = [number[url] for url in recorded]
        right += sum(n in relevant for n in pages)
        wrong += sum(n not in relevant for n in pages)
        relevant_used, relevant_all = relevant_used + len(relevant & set(pages)), relevant_all + len(relevant)
        off_used += len(set(pages) - relevant)
        off_all += len(PAGES) - len(relevant)
    return [
        (
            "passages from a page that answers (precision)",
            f"{right}/{right + wrong} ({right / max(1, right + wrong):.2f})",
        ),
        ("relevant pages giving a passage", f"{relevant_used}/{relevant_all}"),
        ("off-topic pages giving a passage", f"{off_used}/{off_all}"),
    ]


def _best_per_page(cosines: np.ndarray, owner: np.ndarray) -> np.ndarray:
    return np.array([[row[owner == n].max() for n in range(len(PAGES))] for row in cosines])


def _auc(pairs: list[tuple[float, float]]) -> float:
    """The share of (relevant, off-topic) pairs ranked right (ties half)."""
    return sum(1.0 if r > o else 0.5 if r == o else 0.0 for r, o in pairs) / len(pairs)


def _separation_rows(pages: list[SitePage], e5: OnnxEmbedder, asked: int) -> list[tuple[str, str]]:
    """Threshold-free: how each way of embedding the question ranks relevant pages above off-topic ones."""
    config = ResearchSettings()
    texts = [extract(_fetched(page), config.min_text_chars).text for page in pages]
    passages = [choose.split_passages(text, config) for text in texts]
    owner = np.array([n for n, found in enumerate(passages) for _ in found])
    flat = [passage for found in passages for passage in found]
    questions = QUESTIONS[:asked]
    as_passages = e5.embed(flat, "passage").vectors
    forms = {
        "query: / passage: (e5's retrieval form)": e5.embed(questions, "query").vectors @ as_passages.T,
        "query: / query: (e5's symmetric form)": e5.embed(questions, "query").vectors
        @ e5.embed(flat, "query").vectors.T,
        "passage: / passage: (as shipped)": np.stack([choose.question_vector(q, e5) for q in questions])
        @ as_passages.T,
    }
    rows = []
    for name, cosines in forms.items():
        best = _best_per_page(cosines, owner)
        within = [
            (b[r], b[o])
            for b, rel in zip(best, RELEVANT, strict=False)
            for r in rel
            for o in range(len(PAGES))
            if o not in rel
        ]
        relevant = [b[r] for b, rel in zip(best, RELEVANT, strict=False) for r in rel]
        off = [b[o] for b, rel in zip(best, RELEVANT, strict=False) for o in range(len(PAGES)) if o not in rel]
        pooled = [(r, o) for r in relevant for o in off]
        rows.append(
            (
                f"AUC within a question / pooled; lowest relevant, highest off-topic best cosine: {name}",
                f"{_auc(within):.3f} / {_auc(pooled):.3f}; {min(relevant):.3f}, {max(off):.3f}",
            )
        )
    return rows


def _fetched(page: SitePage) -> Fetched:
    body = page.html.encode("utf-8")
    return Fetched(page.title, "text/html", "utf-8", body, "", hashlib.sha256(body).hexdigest(), 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=len(QUESTIONS), help="questions researched (at most 6)")
    parser.add_argument("--model-file", default="", help="ONNX file in the e5 folder (default: the settings')")
    parser.add_argument("--first-calls", action="store_true", help="the small model's first calls (research_calls)")
    args = parser.parse_args()
    if args.first_calls:
        research_calls.main()
        return
    if problem := missing_eval_vault():
        raise SystemExit(problem)
    locate_model_files(E5_DIR)
    e5 = OnnxEmbedder(E5_DIR, threads=2, batch=32, model_file=args.model_file)
    pages = [page_from_markdown(eval_vault_path() / rel, lang) for rel, lang in PAGES]
    asked = max(1, min(args.questions, len(QUESTIONS)))
    reports: list[ResearchReport] = []
    urls: list[list[str]] = []
    started = time.perf_counter()
    with LoopbackSite(pages) as site:
        results = [(site.page_url(n), page.title) for n, page in enumerate(pages)]
        with searxng_standin(results) as search:
            for question in QUESTIONS[:asked]:
                report, recorded = _one(question, site, search.url, e5)
                reports.append(report)
                urls.append(recorded)
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
    print_value_table(
        f"passage choice (min_similarity {ResearchSettings().min_similarity}, {len(reports)} questions)",
        _choice_rows(urls, site) + _separation_rows(pages, e5, asked),
    )


def _spread(values: list[int]) -> str:
    return f"{statistics.median(values):g} ({min(values)}-{max(values)})"


if __name__ == "__main__":
    main()
