"""The pass, in its load-bearing order: sync, analyse, resolve names, write concept pages, resolve again, embed.

Sync comes first so everything after it sees the vault as it is; analysis before concept pages so their
growth queue and the derived-page gate see this pass's concepts; name resolution before concept pages so a
name that is an alias of an existing page never gets a page of its own (and the concept step leaves alone
a name spelt like a page's), and once more after them, over the pages just written, so ``Core plugins``
can become the alias of the ``core plugin`` page written a moment before; embedding last, over what the
pass made.
A time budget stops the model steps cleanly between pages; whatever was finished is stored page by page. What
the pass did (names taken up, pages written, merges, deferrals per gate: ``PassReport.work``) goes to its ledger
and to the health line (``pass_yield``).
"""

from __future__ import annotations

import resource
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache

from sentinel.embed.base import Embedder, EmbedderUnavailable
from sentinel.gates import derived
from sentinel.index.queries import unresolved
from sentinel.index.sync import sync
from sentinel.maintain import analysis, ledger, pass_yield, queue, schedule, trace
from sentinel.maintain.chat_wait import chat_waiter
from sentinel.maintain.concepts import ConceptReport, write_concept_pages
from sentinel.maintain.lock import local_pass_lock
from sentinel.maintain.models import Models
from sentinel.maintain.names import OUTCOMES, candidate_pairs, resolve_names
from sentinel.maintain.progress import Timer, page_line
from sentinel.maintain.text import read_page_text
from sentinel.providers import ChatProvider, ProviderNotConfigured, ProviderUnavailable
from sentinel.search.embedding import VectorsFromAnotherModel, embed_pending
from sentinel.serving import ServingRecord
from sentinel.settings import Settings

Say = Callable[[str], None]


@dataclass
class PassReport:
    dry_run: bool = False
    synced: dict[str, object] = field(default_factory=dict)
    awaiting: int = 0  # pages due for analysis when the pass began
    analysed: int = 0
    failed: int = 0
    blind: bool = False  # the truncation gate could not look at some call (no usage returned)
    ledger: str = ""  # the pass's review ledger (``sentinel maintain log``), "" when it wrote nothing
    broken_generated: list[str] = field(default_factory=list)  # generated pages whose quotes no longer hold
    concept_pages_written: list[str] = field(default_factory=list)
    concepts_undefined: int = 0
    concepts_one_definition: int = 0
    resolved: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    aliases_written: int = 0
    work: pass_yield.PassYield = field(default_factory=pass_yield.PassYield)  # names taken up, written, deferred
    embedded: int = 0
    stopped: str = ""  # why the pass ended early ("" when it ran to the end)
    unreached: str = ""  # a step needed a model and none answered at all: the pass did not run (not recorded)
    seconds: float = 0.0
    peak_memory_mb: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def summary_lines(self) -> list[str]:
        if self.dry_run:
            return [f"  seconds {self.seconds:.1f}   peak memory {self.peak_memory_mb:.0f} MB"]
        lines = [
            f"  analysed {self.analysed}   failed {self.failed}   written {len(self.concept_pages_written)}   "
            f"embedded {self.embedded}   seconds {self.seconds:.1f}   peak memory {self.peak_memory_mb:.0f} MB",
            f"  resolved {self.resolved}",
            f"  {self.work.line()}",
        ]
        if self.stopped:
            lines.append(f"  stopped early: {self.stopped}")
        if self.unreached:
            lines.append("  not counted as a pass: no model answered (a missed night stays missed, to be caught up)")
        return lines


def peak_memory_mb() -> float:
    """Peak resident memory of this process (the model server, if local, is its own process)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _analyse(
    settings: Settings,
    db: sqlite3.Connection,
    models: Callable[[], Models],
    out_of_time: Callable[[], bool],
    say: Say,
    report: PassReport,
) -> None:
    due = queue.awaiting_analysis(db)
    known = derived.known_concepts(db)  # the gate adds each non-derived page's concepts as it goes
    timer = Timer(say)
    for number, item in enumerate(due, 1):
        if out_of_time():
            report.stopped = f"time budget spent with {len(due) - number + 1} pages still awaiting analysis"
            say(f"  stopped: {report.stopped}")
            return
        page = read_page_text(settings.vault, item.path, item.role)
        if page is None:
            say(f"  [{number}/{len(due)}] {item.path}: skipped - the file is gone (the next sync drops it)")
            continue
        chosen = models()
        outcome = analysis.analyse_page(page, chosen, settings, known)
        analysis.store(db, outcome, chosen.label)
        if outcome.status == "ok":
            report.analysed += 1
        else:
            report.failed += 1
        if outcome.blind and not report.blind:
            report.blind = True
            say("  note: the endpoint returned no usage, so the truncation gate is blind on this run")
        say(f"  [{number}/{len(due)}] {item.path}: {page_line(outcome, timer)}")


def _resolve(
    settings: Settings,
    db: sqlite3.Connection,
    model: Callable[[], ChatProvider],
    out_of_time: Callable[[], bool],
    say: Say,
    report: PassReport,
) -> None:
    if out_of_time():
        return
    say("name resolution")
    names = resolve_names(settings, db, model, out_of_time, say)
    for outcome, count in names.counts.items():
        report.resolved[outcome] += count
    report.aliases_written += len(names.aliases_written)
    report.work.names_taken_up += sum(names.counts.values())
    report.work.merges += len(names.aliases_written)
    for rule, count in names.merged_by.items():
        report.work.merged_by[rule] = report.work.merged_by.get(rule, 0) + count
    for gate, count in names.deferred_by.items():
        report.work.defer(gate, count)


def _count_concepts(concepts: ConceptReport, report: PassReport) -> None:
    """The concept step's yield: what it took up and wrote, and which gate left each other name without a page."""
    report.concept_pages_written = concepts.written
    report.concepts_undefined, report.concepts_one_definition = concepts.undefined, concepts.one_definition
    report.work.names_taken_up += concepts.taken_up
    report.work.pages_written += len(concepts.written)
    report.work.defer("concept_name", concepts.not_a_name)
    report.work.defer("no paragraph", concepts.no_paragraph)
    report.work.defer("definition: never defined", concepts.undefined - concepts.no_paragraph)
    report.work.defer("definition: one sentence", concepts.one_definition)
    report.work.defer("one thing, one page", concepts.left_alone)
    report.work.defer("schema", concepts.failed)


def run_pass(
    settings: Settings,
    db: sqlite3.Connection,
    *,
    models: Callable[[], Models],
    embedder: Callable[[], Embedder | None] = lambda: None,
    minutes: float | None = None,
    dry_run: bool = False,
    retry_failed: bool = False,
    serving: ServingRecord | None = None,
    say: Say = print,
) -> PassReport:
    """Run one maintenance pass over the configured vault. ``models`` and ``embedder`` are called only when a
    step needs them, so a pass with nothing to do (or a dry run) never touches a model. ``serving`` is the pool's
    record of chats, which the pass yields to (none: it sees no chats). Raises ``PassBusy`` when another pass
    holds this index."""
    started = time.monotonic()
    deadline = started + minutes * 60 if minutes else None
    report = PassReport(dry_run=dry_run)

    yield_to_chat = chat_waiter(settings, serving, say)

    def out_of_time() -> bool:  # asked between pages by every model step: where a pass yields to a chat, too
        yield_to_chat()
        return deadline is not None and time.monotonic() >= deadline

    with local_pass_lock(settings):
        synced = sync(settings, db)
        report.synced = synced.as_dict()
        say(f"sync\n  added {synced.added}   updated {synced.updated}   removed {synced.removed}")
        if synced.refused:
            say(f"  withheld: {synced.refused}")
        if retry_failed and not dry_run:
            say(f"  {queue.forget_failures(db)} failed analyses queued again")
        report.awaiting = queue.count_awaiting(db)
        if dry_run:
            _owed(db, settings, report, say)
            return _finish(report, started)
        model_roles = cache(models)  # built on first need, once
        book = ledger.start(settings)  # every page and alias written from here on lands in this pass's ledger
        try:
            say("analysis")
            _analyse(settings, db, model_roles, out_of_time, say, report)
            _resolve(settings, db, lambda: model_roles().extraction, out_of_time, say, report)
            if not out_of_time():
                say("concept pages")
                concepts = write_concept_pages(settings, db, lambda: model_roles().extraction, out_of_time, say)
                _count_concepts(concepts, report)
                if concepts.written:
                    _resolve(settings, db, lambda: model_roles().extraction, out_of_time, say, report)
        except (ProviderUnavailable, ProviderNotConfigured) as error:
            report.stopped = f"no model to ask: {str(error).rstrip('.')}; pages not yet analysed stay due"
            say(f"  stopped: {report.stopped}")
            if not (report.analysed or report.failed or report.concept_pages_written):
                report.unreached = report.stopped
        finally:
            report.ledger = ledger.finish(book, report.work.as_dict())
            pass_yield.remember(db, report.work)
        report.broken_generated = trace.record_broken(db, settings)
        if out_of_time() and not report.stopped:
            report.stopped = "time budget spent"
        _embed(db, embedder, out_of_time, report, say)
        if not report.unreached:  # only a pass that reached its models counts: catch-up depends on it
            schedule.record_run(db)
    return _finish(report, started)


def _embed(
    db: sqlite3.Connection,
    embedder: Callable[[], Embedder | None],
    out_of_time: Callable[[], bool],
    report: PassReport,
    say: Say,
) -> None:
    """Embedding is inside the budget like every step (on a new vault it alone takes minutes); what it leaves
    stays pending for the next pass, `sentinel embed` or, for edited pages, the API's live watcher."""
    say("embedding")
    try:
        engine = embedder()
        if engine is None:
            say("  skipped: no embedder configured (set SENTINEL_EMBEDDER_URL or SENTINEL_EMBED_MODEL_DIR)")
            return
        counts = embed_pending(db, engine, out_of_time=out_of_time)
    except (EmbedderUnavailable, VectorsFromAnotherModel) as error:
        say(f"  skipped: {error}")
        return
    report.embedded = counts.chunks + counts.summaries
    say(f"  embedded {counts.chunks} chunks and {counts.summaries} summaries in {counts.seconds:.1f}s")
    if counts.left:
        left = f"{counts.left} passages still to embed (they stay pending)"
        report.stopped = f"{report.stopped}; {left}" if report.stopped else f"time budget spent with {left}"
        say(f"  stopped: {left}")


def _owed(db: sqlite3.Connection, settings: Settings, report: PassReport, say: Say) -> None:
    """What the vault owes, counted without a model (``--dry-run``)."""
    say("dry run: what the vault owes (no model was called)")
    say(f"  pages awaiting analysis   {report.awaiting}")
    say(f"  failed analyses           {len(queue.failed_analyses(db))}")
    say(f"  growth-queue names        {len(unresolved(db, limit=settings.concept_pages_per_pass))}")
    say(f"  name pairs to ask         {len(candidate_pairs(db, settings))}")


def _finish(report: PassReport, started: float) -> PassReport:
    report.seconds = time.monotonic() - started
    report.peak_memory_mb = peak_memory_mb()
    return report
