"""Name resolution: an unresolved name becomes an alias of a page only on a twice-repeated "same".

Candidate pairs are found by spelling (code, deterministic): each growth-queue name against the titles and
aliases of pages that may carry an alias. A pair whose names differ only by added words defers without asking
(shape gate); every other pair is asked "same, different or unclear?", and a "same" is asked again with the
pair swapped (reversal gate). Only a repeated "same" is recorded, as an alias in the page's frontmatter
(``aliases.add_alias``). Every verdict is remembered, so a settled pair is not asked again.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sentinel.gates import derived, reversal, schema, shape
from sentinel.gates.verbatim import normalise
from sentinel.index.migrations import transaction
from sentinel.index.sync import sync_paths
from sentinel.maintain.aliases import AliasRefused, add_alias
from sentinel.maintain.concepts import mentions
from sentinel.paths import ALIAS_TARGET_ROLES
from sentinel.providers import ChatProvider, ChatResult, Message, ProviderError, ProviderUnavailable
from sentinel.settings import Settings

_WORD = re.compile(r"\w+")
_COMMON_WORD_TITLES = 500
_ANSWER_TOKENS = 64  # {"answer": "different"} is about ten tokens
OUTCOMES: tuple[reversal.Outcome, ...] = ("same", "different", "unclear", "unconfirmed")


class SameReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: Literal["same", "different", "unclear"]


@dataclass(frozen=True)
class Pair:
    name: str  # the unresolved name, as most links spell it
    key: str
    title: str  # the page title or alias it resembles
    title_key: str
    path: str  # the page that title or alias belongs to
    similarity: float


@dataclass
class NamesReport:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    aliases_written: list[tuple[str, str]] = field(default_factory=list)
    calls: list[ChatResult] = field(default_factory=list)


def similarity(a: str, b: str) -> float:
    """Spelling similarity of two names after normalisation (difflib's ratio, 0..1)."""
    return SequenceMatcher(None, normalise(a), normalise(b)).ratio()


def _words(name: str) -> set[str]:
    return {w for w in _WORD.findall(normalise(name)) if len(w) >= 3}


def _squashed(name: str) -> str:
    return "".join(_WORD.findall(normalise(name)))


def candidate_pairs(db: sqlite3.Connection, settings: Settings) -> list[Pair]:
    """Undecided pairs of (growth-queue name, title or alias) that look alike, most alike first.

    Only titles sharing a word of three or more letters, or the same letters once spaces and punctuation are
    removed, are compared at all: a 100k-page vault is not compared name by name."""
    roles = sorted(role.value for role in ALIAS_TARGET_ROLES)
    marks = ",".join("?" * len(roles))
    titles = db.execute(
        f"""SELECT title AS name, path FROM pages WHERE role IN ({marks})
            UNION SELECT a.alias, a.path FROM aliases a JOIN pages p ON p.path = a.path WHERE p.role IN ({marks})""",
        (*roles, *roles),
    ).fetchall()
    by_word: dict[str, list[int]] = defaultdict(list)
    by_squashed: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(titles):
        for word in _words(row["name"]):
            by_word[word].append(index)
        by_squashed[_squashed(row["name"])].append(index)
    decided = {(r[0], r[1]) for r in db.execute("SELECT unresolved_key, name_key FROM name_verdicts")}
    pairs = []
    for entry in derived.growth_queue(db, settings.concept_pages_per_pass).kept:
        if "/" in entry.key:
            continue
        near = set(by_squashed.get(_squashed(entry.name), []))
        for word in _words(entry.name):
            sharing = by_word.get(word, [])
            if len(sharing) <= _COMMON_WORD_TITLES:  # a word half the vault's titles carry says nothing
                near.update(sharing)
        for index in sorted(near):
            row = titles[index]
            title_key = normalise(row["name"])
            if title_key == normalise(entry.name) or (entry.key, title_key) in decided:
                continue
            score = similarity(entry.name, row["name"])
            if score >= settings.resolve_min_similarity or _squashed(entry.name) == _squashed(row["name"]):
                pairs.append(Pair(entry.name, entry.key, row["name"], title_key, row["path"], score))
    pairs.sort(key=lambda p: (-p.similarity, p.key, p.title_key, p.path))
    return pairs[: settings.resolve_max_pairs]


def _context(db: sqlite3.Connection, name: str) -> str:
    found = mentions(db, name, 1)
    return f' It appears in: "{found[0].sentences[0][:300]}"' if found else ""


def _question(first: str, first_context: str, second: str, second_context: str) -> list[Message]:
    return [
        {"role": "system", "content": "You compare two names from someone's notes. Reply with JSON only."},
        {
            "role": "user",
            "content": (
                f'Name A: "{first}".{first_context}\nName B: "{second}".{second_context}\n\n'
                'Do A and B name the same thing? Answer "same" only if they are two spellings or names of one '
                'thing; "different" if they are different things (a kind of the other, a part of it, a related '
                'thing); "unclear" if you cannot tell. Return a JSON object {"answer": "same" | "different" | '
                '"unclear"}.'
            ),
        },
    ]


def _ask(model: ChatProvider, messages: list[Message], attempts: int, report: NamesReport) -> reversal.Answer:
    gated = schema.gated_call(model, messages, SameReply, attempts=attempts, max_tokens=_ANSWER_TOKENS)
    report.calls += gated.results
    return gated.reply.answer


def _decide(db: sqlite3.Connection, pair: Pair, model: ChatProvider, settings: Settings, report: NamesReport) -> str:
    if shape.defers_by_shape(pair.name, pair.title):
        return "unclear"
    name_context, title_context = _context(db, pair.name), _context(db, pair.title)
    attempts = settings.analysis_attempts
    first = _ask(model, _question(pair.name, name_context, pair.title, title_context), attempts, report)
    swapped = None
    if first == "same":
        swapped = _ask(model, _question(pair.title, title_context, pair.name, name_context), attempts, report)
    return reversal.confirmed_by_reversal(first, swapped)


def _remember(db: sqlite3.Connection, pair: Pair, verdict: str) -> None:
    with transaction(db):
        db.execute(
            """INSERT OR REPLACE INTO name_verdicts (unresolved_key, name_key, page_path, verdict, decided_at)
               VALUES (?,?,?,?,?)""",
            (pair.key, pair.title_key, pair.path, verdict, time.time()),
        )


def resolve_names(
    settings: Settings,
    db: sqlite3.Connection,
    model: Callable[[], ChatProvider],
    out_of_time: Callable[[], bool],
    say: Callable[[str], None],
) -> NamesReport:
    """Ask about each candidate pair; write an alias for every pair confirmed "same" both ways round."""
    report = NamesReport()
    merged: set[str] = set()  # an unresolved name gets at most one alias per pass
    for pair in candidate_pairs(db, settings):
        if out_of_time():
            say("  stopped: time budget spent")
            break
        if pair.key in merged:
            continue
        try:
            verdict = _decide(db, pair, model(), settings, report)
        except ProviderUnavailable:
            raise
        except (schema.CallRefused, ProviderError) as failed:
            say(f"  {pair.name} / {pair.title}: not decided - {failed}")
            continue
        if verdict == "same":
            try:
                evidence = {"same as": pair.title, "answers, as asked and swapped": "same, same"}
                add_alias(settings.vault / pair.path, pair.name, evidence)
            except (AliasRefused, OSError) as refused:
                say(f"  {pair.name} / {pair.title}: same, but the alias was not written - {refused}")
                continue
            sync_paths(settings, db, [pair.path])
            merged.add(pair.key)
            report.aliases_written.append((pair.name, pair.path))
            say(f"  {pair.name} -> alias of {pair.path}")
        report.counts[verdict] += 1
        _remember(db, pair, verdict)
    return report
