"""Analysis: one page, one clean context, one call, two outputs (what the page is, which concepts it names).

A page that fits the extraction window is read in one extractive JSON call. A longer page is split between
the roles: the summary model reads it whole (its own, larger window) and the extraction model walks it in
overlapping windows. A page longer than the summary window too is never lost: each extraction window also
gets a one-line summary, and the summary model reduces those lines to the page's one line (recorded as such).
Whatever the model answers passes the gates before it is kept: the JSON schema (with bounded retries), the
truncation gate, the verbatim gate, the concept-name gate, and for wiki/ pages the derived-page gate. The
outcome is stored in one transaction, so a page is never marked analysed without its outputs.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from sentinel.gates import concept_name, derived, schema, verbatim
from sentinel.index.migrations import transaction
from sentinel.maintain.models import Models
from sentinel.maintain.text import PageText, window_chars, windows
from sentinel.providers import ChatProvider, ChatResult, Message, ProviderError, ProviderUnavailable
from sentinel.settings import Settings
from sentinel.vault.links import link_key

# The bounds are part of the JSON schema sent with the call, so a server that constrains output to the schema
# (llama.cpp, Ollama) cannot loop: a small model otherwise repeats list items until max_tokens.
MAX_CONCEPTS = 20

SYSTEM = (
    "You copy information out of one page of someone's notes. You never add words of your own to the concept "
    "list. Reply with JSON only."
)
# The summary is the page's line at the summary rung, where five hits should cost about 75 tokens (seed 000).
SUMMARY_RULE = '"summary": one short sentence, at most 20 words, saying what this page is.'
CONCEPTS_RULE = (
    '"concepts": the names of the concepts, terms, methods, people, places and works the page refers to, '
    f"each copied exactly as it is written in the page, each once. At most {MAX_CONCEPTS}."
)

PARTS_INTRO = "This page is too long to read at once; these are summaries of its consecutive parts, in order:"

Summary = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=600)]
Concept = Annotated[str, StringConstraints(max_length=120)]
Concepts = Annotated[list[Concept], Field(max_length=MAX_CONCEPTS)]


class SummaryAndConcepts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: Summary
    concepts: Concepts


class SummaryOnly(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: Summary


class ConceptsOnly(BaseModel):
    model_config = ConfigDict(extra="forbid")
    concepts: Concepts


def _messages(page_text: str, rules: Sequence[str]) -> list[Message]:
    listed = "\n".join(f"- {rule}" for rule in rules)
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"<page>\n{page_text}\n</page>\n\nReturn a JSON object with:\n{listed}"},
    ]


@dataclass
class Outcome:
    """What analysing one page produced. ok: summary and concepts are kept; failed: ``reason`` says why."""

    path: str
    hash: str
    status: Literal["ok", "failed"] = "ok"
    summary: str = ""
    concepts: list[str] = field(default_factory=list)
    dropped_not_verbatim: list[str] = field(default_factory=list)
    dropped_misshapen: list[str] = field(default_factory=list)
    dropped_derived: list[str] = field(default_factory=list)
    reason: str = ""
    calls: list[ChatResult] = field(default_factory=list)
    blind: bool = False  # a call returned no usage: the truncation gate could not look
    summary_from_parts: int = 0  # >0: the summary was reduced from this many window summaries
    wall_s: float = 0.0


class PageFailed(Exception):
    """A gate (or the server) refused this page; the message is the recorded reason."""


def _gated_call(
    provider: ChatProvider, messages: list[Message], reply: type[schema.Reply], outcome: Outcome, settings: Settings
) -> schema.Reply:
    """One call through ``schema.gated_call``; a refusal or a failed call fails the page."""
    try:
        gated = schema.gated_call(
            provider,
            messages,
            reply,
            attempts=settings.analysis_attempts,
            max_tokens=settings.analysis_reply_tokens,
        )
    except schema.CallRefused as refused:
        outcome.calls += refused.results
        raise PageFailed(refused.reason) from refused
    except ProviderUnavailable:
        raise
    except ProviderError as error:
        raise PageFailed(f"the model call failed: {error}") from error
    outcome.calls += gated.results
    outcome.blind |= bool(gated.caveat)
    return gated.reply


def _read(page: PageText, models: Models, settings: Settings, outcome: Outcome) -> list[tuple[str, list[str]]]:
    """Set the summary; return (text the model saw, concepts it copied) for each extraction call."""
    size = _window(models.extraction, settings)
    if len(page.text) <= size:
        messages = _messages(page.text, [SUMMARY_RULE, CONCEPTS_RULE])
        both = _gated_call(models.extraction, messages, SummaryAndConcepts, outcome, settings)
        outcome.summary = both.summary
        return [(page.text, both.concepts)]
    whole_fits = len(page.text) <= _window(models.summary, settings)
    if whole_fits:
        whole = _gated_call(models.summary, _messages(page.text, [SUMMARY_RULE]), SummaryOnly, outcome, settings)
        outcome.summary = whole.summary
    found, lines = [], []
    for window in windows(page.text, size, settings.extraction_overlap_chars):
        if whole_fits:
            part = _gated_call(models.extraction, _messages(window, [CONCEPTS_RULE]), ConceptsOnly, outcome, settings)
            found.append((window, part.concepts))
            continue
        rules = [SUMMARY_RULE, CONCEPTS_RULE]
        both = _gated_call(models.extraction, _messages(window, rules), SummaryAndConcepts, outcome, settings)
        found.append((window, both.concepts))
        lines.append(both.summary)
    if not whole_fits:
        outcome.summary, outcome.summary_from_parts = _reduce(page, lines, models, settings, outcome), len(lines)
    return found


def _window(provider: ChatProvider, settings: Settings) -> int:
    return window_chars(provider.num_ctx, settings.analysis_reply_tokens, settings.analysis_chars_per_token)


def _reduce(page: PageText, lines: list[str], models: Models, settings: Settings, outcome: Outcome) -> str:
    """One line from the summaries of consecutive windows, in rounds while they exceed the summary window."""
    title = page.text.split("\n", 1)[0]
    size = _window(models.summary, settings) - len(title) - len(PARTS_INTRO) - 2
    while True:
        joined = "\n".join(f"- {line}" for line in lines)
        groups = windows(joined, max(size, 200), 0) if len(joined) > size else [joined]
        lines = [
            _gated_call(
                models.summary,
                _messages(f"{title}\n{PARTS_INTRO}\n{group}", [SUMMARY_RULE]),
                SummaryOnly,
                outcome,
                settings,
            ).summary
            for group in groups
        ]
        if len(lines) == 1:
            return lines[0]


def analyse_page(page: PageText, models: Models, settings: Settings, known: set[str]) -> Outcome:
    """Analyse one page through every gate (``known``: see ``derived.known_concepts``; the gate adds this
    page's concepts to it when the page may add concepts). Never raises for the page's own sake: a refusal is a failed
    outcome with its reason. ``ProviderUnavailable`` (server unreachable) does propagate: that is the run's
    problem, not the page's, and the page stays due."""
    started = time.perf_counter()
    outcome = Outcome(page.path, page.hash)
    if page.empty:
        return outcome
    try:
        read = _read(page, models, settings, outcome)
    except PageFailed as failed:
        outcome.status, outcome.reason, outcome.summary = "failed", str(failed), ""
        outcome.wall_s = time.perf_counter() - started
        return outcome
    copied: list[str] = []
    for seen_text, concepts in read:
        checked = verbatim.keep_verbatim(concepts, seen_text)
        copied += checked.kept
        outcome.dropped_not_verbatim += checked.dropped
    unique = verbatim.keep_verbatim(copied, page.text).kept  # overlapping windows repeat names: keep each once
    named = concept_name.well_formed(unique)
    outcome.dropped_misshapen = named.dropped
    allowed = derived.no_new_concepts_from_derived(named.kept, page.role, known)
    outcome.concepts, outcome.dropped_derived = allowed.kept, allowed.dropped
    outcome.wall_s = time.perf_counter() - started
    return outcome


def store(db: sqlite3.Connection, outcome: Outcome, model_label: str) -> None:
    """Record the outcome in one transaction: outputs and the "analysed" mark land together or not at all."""
    notes = []
    if outcome.dropped_not_verbatim:
        notes.append("dropped, not verbatim in the text: " + ", ".join(outcome.dropped_not_verbatim))
    if outcome.dropped_misshapen:
        notes.append("dropped, not shaped like a name: " + ", ".join(outcome.dropped_misshapen))
    if outcome.dropped_derived:
        notes.append("dropped, new concept from a derived page: " + ", ".join(outcome.dropped_derived))
    if outcome.summary_from_parts:
        notes.append(
            f"summary reduced from {outcome.summary_from_parts} window summaries (longer than the summary window)"
        )
    reason = outcome.reason or "; ".join(notes)
    with transaction(db):
        db.execute(
            """INSERT INTO analysis (path, hash, status, summary, concepts, reason, model, analysed_at)
               SELECT ?,?,?,?,?,?,?,? WHERE EXISTS (SELECT 1 FROM pages WHERE path = ?)
               ON CONFLICT(path) DO UPDATE SET hash=excluded.hash, status=excluded.status, summary=excluded.summary,
                 concepts=excluded.concepts, reason=excluded.reason, model=excluded.model,
                 analysed_at=excluded.analysed_at""",
            (
                outcome.path,
                outcome.hash,
                outcome.status,
                outcome.summary,
                json.dumps(outcome.concepts, ensure_ascii=False),
                reason,
                model_label,
                time.time(),
                outcome.path,  # a page deleted while it was being read is simply not recorded
            ),
        )
        db.execute("DELETE FROM concept_mentions WHERE path = ?", (outcome.path,))
        db.executemany(
            """INSERT INTO concept_mentions (path, concept, concept_key)
               SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM pages WHERE path = ?)""",
            [(outcome.path, concept, link_key(concept), outcome.path) for concept in outcome.concepts],
        )
