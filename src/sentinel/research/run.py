"""One research run: search, fetch, extract, choose, gate, record, index.

``research`` refuses before it asks anything when the target is not a Sentinel vault's sources folder
(``target.research_target``), when no embedder is configured (passages are chosen by e5 similarity) or when the
extractors are missing. Every result page ends up in the record, either as passages or in the not-used list with
its reason; the record is then indexed so ``search`` at the body rung finds it at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from sentinel.embed.base import Embedder
from sentinel.embed.factory import embedder_from_settings
from sentinel.gates import verbatim
from sentinel.index.db import open_index
from sentinel.index.sync import sync_paths
from sentinel.paths import source_record_path
from sentinel.providers import ChatProvider, provider_for
from sentinel.research import choose
from sentinel.research.backends import SearchBackend, backend_from_settings
from sentinel.research.extract import Extracted, extract, missing_extractors
from sentinel.research.fetch import Fetched, Fetcher, PageUnusable, now_iso
from sentinel.research.record import Passage, Run, Unusable, write_record
from sentinel.research.target import ResearchRefused, research_target
from sentinel.settings import Settings
from sentinel.tools.policy import Status

MAX_QUESTION_CHARS = 1000


@dataclass
class ResearchReport:
    relpath: str
    created: bool
    added: int
    repeated: int
    results: int  # URLs the backend returned
    used: int  # pages that gave at least one passage (a page reached twice, by a redirect, counts once)
    unusable: list[Unusable]
    notes: list[str]
    seconds: float
    added_pages: int = 0  # pages the new passages come from: fewer than used when some were already recorded
    fetch_seconds: list[float] = field(default_factory=list)  # per page fetched
    extract_seconds: list[float] = field(default_factory=list)  # per page extracted


def check_question(question: str) -> str:
    words = " ".join(question.split())
    if not words:
        raise ResearchRefused('the question is empty: ask something, e.g. sentinel research "what is X?"')
    if len(words) > MAX_QUESTION_CHARS:
        raise ResearchRefused(f"the question is {len(words)} characters long; the limit is {MAX_QUESTION_CHARS}")
    return words


def check_ready(settings: Settings) -> Path:
    """The sources folder research writes into, once the target and the extractors are checked."""
    target = research_target(settings)
    if problem := missing_extractors():
        raise ResearchRefused(problem)
    return target


def prepare(settings: Settings) -> Embedder:
    """Everything research needs, checked before a run: the target, the extractors, the embedder."""
    check_ready(settings)
    embedder = embedder_from_settings(settings)
    if embedder is None:
        raise ResearchRefused(
            "research chooses passages by e5 similarity and no embedder is configured: set SENTINEL_EMBEDDER_URL "
            "(the embedder service) or SENTINEL_EMBED_MODEL_DIR (models/multilingual-e5-small)"
        )
    return embedder


def filter_model(settings: Settings) -> ChatProvider | None:
    """The extraction model when ``research.model_filter`` is on, else None."""
    return provider_for(settings.extraction, "extraction") if settings.research.model_filter else None


def _passages(
    question: str,
    page: Fetched,
    text: Extracted,
    embedder: Embedder,
    provider: ChatProvider | None,
    settings: Settings,
    notes: list[str],
) -> list[str]:
    config = settings.research
    chosen = choose.candidates(question, choose.split_passages(text.text, config), embedder, config)
    proposed = [c.text for c in chosen]
    if provider is not None and chosen:
        filtered = choose.model_filter(
            question, chosen, provider, settings.analysis_attempts, settings.analysis_reply_tokens
        )
        proposed = [p for p in filtered.passages if len(p) >= config.passage_min_chars]
        if filtered.dropped:
            notes.append(
                f"- {filtered.dropped} passages the model gave for <{page.url}> were not found verbatim in the "
                "page and were dropped."
            )
        if filtered.refused:
            notes.append(f"- <{page.url}>: {filtered.refused}.")
    gate = verbatim.keep_passages(proposed, text.text)
    if gate.dropped:
        notes.append(f"- {len(gate.dropped)} passages of <{page.url}> were not verbatim in its text and were dropped.")
    return gate.kept


def research(
    question: str,
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    backend: SearchBackend | None = None,
    provider: ChatProvider | None = None,
    index: bool = True,
) -> ResearchReport:
    """Research ``question`` and append what was found to its source record; returns what happened."""
    started = time.perf_counter()
    question = check_question(question)
    vault = check_ready(settings).parent
    embedder = embedder or prepare(settings)
    backend = backend or backend_from_settings(settings.research)
    hits = backend.search(question, settings.research.results)
    run = Run(question, now_iso(), backend.name, question)
    report = ResearchReport("", False, 0, 0, len(hits), 0, run.unusable, run.notes, 0.0)
    fetcher = Fetcher(settings.research)
    used_urls: set[str] = set()  # pages (after redirects) already taken in this run
    try:
        for hit in hits:
            try:
                page = fetcher.fetch(hit.url)
                report.fetch_seconds.append(page.seconds)
                if page.url in used_urls:  # a result that redirects to a page this run has: its passages once
                    raise PageUnusable(f"the same page as <{page.url}>, already used in this run")
                text = extract(page, settings.research.min_text_chars)
                report.extract_seconds.append(text.seconds)
            except PageUnusable as unusable:
                run.unusable.append(Unusable(hit.url, unusable.reason))
                continue
            kept = _passages(question, page, text, embedder, provider, settings, run.notes)
            if not kept:
                run.unusable.append(Unusable(hit.url, "no passage relevant to the question"))
                continue
            report.used += 1
            used_urls.add(page.url)
            title = text.title or hit.title
            run.passages += [Passage(p, page.url, title, page.fetched_at, page.sha256) for p in kept]
    finally:
        fetcher.close()
    written = write_record(vault, source_record_path(question, settings), run)
    report.relpath, report.created, report.added, report.repeated, report.added_pages = (
        written.relpath,
        written.created,
        written.added,
        written.repeated,
        written.added_pages,
    )
    if index:
        db = open_index(settings)
        try:
            sync_paths(settings, db, [written.relpath])
        finally:
            db.close()
    report.seconds = time.perf_counter() - started
    return report


def report_text(report: ResearchReport) -> str:
    """What a model (or a person) is told about a run, starting with a status marker; code's words only."""
    pages = f"{report.used} of {report.results} results gave passages, {len(report.unusable)} were not used"
    if report.added:
        held = f"; {report.repeated} found were already recorded" if report.repeated else ""
        return (
            f"{Status.NEXT} Research recorded in {report.relpath}: {report.added} new passages from "
            f"{report.added_pages} pages ({pages}{held}). "
            "Read them with search rung='body' or read the record; cite the URLs it lists."
        )
    repeated = f" ({report.repeated} passages found were already recorded)" if report.repeated else ""
    return (
        f"{Status.DONE} Research found no new passage answering the question{repeated}: {pages}, each listed with its "
        f"reason in {report.relpath}. Tell the user what the record says; do not research the same question again."
    )
