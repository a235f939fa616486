"""Run an answer eval end to end: search (body rung) -> the model answers from the hits -> string checks."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sentinel.embed.base import Embedder
from sentinel.evals.suite import Case, Suite, forbidden_found, missing_facts, missing_sources
from sentinel.providers import ChatProvider, Message, ProviderError
from sentinel.search import search
from sentinel.settings import Settings

NOT_FOUND = "the notes do not say"
# Measured on Qwen2.5-Coder-0.5B: any firmer "reply exactly ... when unsure" made it abstain on every
# question, answerable or not; this wording lets it answer (and a case's facts catch invented values).
SYSTEM = (
    "Answer the question using the excerpts from the user's notes. Quote the exact value and cite the page "
    f"path in square brackets. If none of the excerpts is about the question, say that {NOT_FOUND}."
)
EVIDENCE_HITS = 5
ANSWER_TOKENS = 200


@dataclass
class CaseResult:
    id: str
    question: str
    answer: str
    evidence: list[str]  # page paths the answer was given, in rank order
    missing_facts: list[str] = field(default_factory=list)
    missing_sources: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    error: str = ""  # the model could not be asked
    notes: list[str] = field(default_factory=list)  # the search's notes (e.g. lexical only)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return not (self.missing_facts or self.missing_sources or self.forbidden or self.error)

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "passed": self.passed,
            "question": self.question,
            "answer": self.answer,
            "evidence": self.evidence,
            "missing_facts": self.missing_facts,
            "missing_sources": self.missing_sources,
            "forbidden": self.forbidden,
            "error": self.error,
            "notes": self.notes,
            "seconds": round(self.seconds, 2),
        }


def prompt(case: Case, hits: list[tuple[str, str, str]]) -> list[Message]:
    """The messages for one case: the rules, then the excerpts (path, trail, text) and the question."""
    excerpts = "\n\n".join(f"[{i}] {path} > {trail}\n{text}" for i, (path, trail, text) in enumerate(hits, 1))
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Excerpts:\n\n{excerpts or '(none)'}\n\nQuestion: {case.question}"},
    ]


def run_case(
    db: sqlite3.Connection, settings: Settings, embedder: Embedder | None, provider: ChatProvider, case: Case
) -> CaseResult:
    started = time.monotonic()
    found = search(db, settings, embedder, case.question, rung="body", limit=EVIDENCE_HITS)
    hits = [(h.path, h.trail, h.text) for h in found.hits]
    result = CaseResult(case.id, case.question, "", [h[0] for h in hits], notes=list(found.notes))
    try:
        reply = provider.chat(prompt(case, hits), temperature=0.0, max_tokens=ANSWER_TOKENS)
    except ProviderError as err:
        result.error = str(err)
    else:
        result.answer = reply.content.strip()
        result.missing_facts = missing_facts(case, result.answer)
        result.forbidden = forbidden_found(case, result.answer)
    result.missing_sources = missing_sources(case, result.evidence)
    result.seconds = time.monotonic() - started
    return result


def run_suite(
    db: sqlite3.Connection,
    settings: Settings,
    embedder: Embedder | None,
    provider: ChatProvider,
    suite: Suite,
    progress: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    results = []
    for case in suite.cases:
        results.append(run_case(db, settings, embedder, provider, case))
        if progress:
            progress(results[-1])
    return results
