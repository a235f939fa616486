"""Concept pages: written to wiki/ only where the sources define the concept, quoting them.

For a name in the growth queue: paragraphs that mention it are collected from non-derived pages (notes/,
sources/, other: never wiki/, never conversations/), each is put to the model as "does this say what X is?",
and the definition gate keeps only sentences that carry the name verbatim and that the model said define it.
Two are enough, one is not, none leaves the name in the queue. The page quotes those sentences with links to
their sources and lists every file it was written from. A name that already resolves to a page, or whose
page file exists, is left alone: the person may have created it. So is a name that is another spelling of a
page's title or alias (``Core plugins`` beside a page ``core plugin``): one thing gets one page, and name
resolution decides whether the spelling becomes that page's alias.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field

from sentinel.gates import definition, schema
from sentinel.gates.verbatim import contains_verbatim, normalise
from sentinel.index.migrations import transaction
from sentinel.index.queries import Unresolved, unresolved
from sentinel.index.resolve import resolve_keys
from sentinel.index.sync import sync_paths
from sentinel.paths import DEFINING_ROLES, concept_path, page_name
from sentinel.providers import ChatProvider, ChatResult, Message, ProviderError, ProviderUnavailable
from sentinel.settings import Settings
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.name_words import variant_key
from sentinel.vault.write import atomic_write

_WORD = re.compile(r"\w+")
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+")


class DefiningReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    defining: Annotated[list[int], Field(max_length=20)]  # bounded in the schema: a small model cannot loop


@dataclass(frozen=True)
class Mention:
    source: str
    paragraph: str
    sentences: list[str]  # the paragraph's sentences that carry the name verbatim


@dataclass
class ConceptReport:
    written: list[str] = field(default_factory=list)
    undefined: int = 0  # mentioned, never defined
    one_definition: int = 0
    left_alone: int = 0
    unchanged: int = 0  # same paragraphs as the last check: not asked again
    failed: int = 0  # the model's replies failed the schema
    calls: list[ChatResult] = field(default_factory=list)


def mentions(db: sqlite3.Connection, name: str, limit: int) -> list[Mention]:
    """Paragraphs of non-derived pages that carry ``name`` verbatim, in path order, at most ``limit``."""
    words = _WORD.findall(name)
    if not words:
        return []
    roles = sorted(role.value for role in DEFINING_ROLES)
    rows = db.execute(
        f"""SELECT c.path, c.text FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN pages p ON p.path = c.path
            WHERE chunks_fts MATCH ? AND p.role IN ({",".join("?" * len(roles))}) ORDER BY c.path, c.ordinal""",
        ('"' + " ".join(words) + '"', *roles),
    )
    found: list[Mention] = []
    seen: set[str] = set()
    for path, text in rows:
        for raw in _PARAGRAPH.split(text):
            paragraph = text_without_link_markup(raw).strip()
            key = normalise(paragraph)
            if key in seen or not contains_verbatim(key, name):
                continue
            seen.add(key)
            sentences = [_LIST_MARK.sub("", s).strip() for s in _SENTENCE_END.split(paragraph)]
            naming = [s for s in sentences if s and definition.names_concept(s, name)]
            if not naming:
                continue  # the name runs across a sentence break: no sentence of it could be quoted
            found.append(Mention(path, paragraph, naming))
            if len(found) >= limit:
                return found
    return found


def _question(name: str, mention: Mention) -> list[Message]:
    numbered = "\n".join(f"{i}. {sentence}" for i, sentence in enumerate(mention.sentences, 1))
    return [
        {"role": "system", "content": "You judge whether sentences define a term. Reply with JSON only."},
        {
            "role": "user",
            "content": (
                f'Term: "{name}"\n\nParagraph:\n{mention.paragraph}\n\nSentences of it that mention "{name}":\n'
                f"{numbered}\n\nWhich of these sentences say what {name} is: what the thing is, means or refers "
                "to, not only that it is used or mentioned? Return a JSON object "
                '{"defining": [numbers of the sentences that define it]}, with an empty list if none does.'
            ),
        },
    ]


class BudgetSpent(Exception):
    """The time budget ran out between two questions about one name: the name is left undecided."""


def _defining(
    name: str,
    found: list[Mention],
    model: ChatProvider,
    attempts: int,
    report: ConceptReport,
    out_of_time: Callable[[], bool],
) -> list[definition.Defining]:
    candidates: list[definition.Defining] = []
    for mention in found:
        if out_of_time():
            raise BudgetSpent
        reply, results = schema.call_until_valid(
            lambda conversation: model.chat(conversation, json_schema=DefiningReply.model_json_schema()),
            _question(name, mention),
            DefiningReply,
            attempts,
        )
        report.calls += results
        for number in dict.fromkeys(reply.defining):  # each once, in the model's order
            if 1 <= number <= len(mention.sentences):
                candidates.append(definition.Defining(mention.sentences[number - 1], mention.source))
    return candidates


def _link_target(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


def page_text(name: str, relpath: str, quoted: list[definition.Defining]) -> str:
    """The concept page: the defining sentences quoted with links to their sources, then the Sources list.

    When the file name had to differ from the name (characters a file name cannot hold), the name is kept as
    an alias so links written with it still resolve to the page.
    """
    sources = list(dict.fromkeys(d.source for d in quoted))
    meta: dict[str, object] = {"generated_by": "sentinel maintain", "sources": sources}
    if page_name(relpath) != name:
        meta["aliases"] = [name]
    lines = [f"# {name}", ""]
    for item in quoted:
        lines += [f"> {item.sentence}", f"> — [[{_link_target(item.source)}|{page_name(item.source)}]]", ""]
    lines += ["## Sources", "", *(f"- [[{_link_target(source)}]]" for source in sources), ""]
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n" + "\n".join(lines)


def _fingerprint(found: list[Mention]) -> str:
    digest = hashlib.sha256()
    for mention in found:
        digest.update(f"{mention.source}\0{mention.paragraph}\0".encode())
    return digest.hexdigest()


def _already_checked(db: sqlite3.Connection, key: str, fingerprint: str) -> bool:
    row = db.execute("SELECT fingerprint FROM concept_checks WHERE concept_key = ?", (key,)).fetchone()
    return row is not None and row[0] == fingerprint


def _remember(db: sqlite3.Connection, key: str, fingerprint: str, outcome: str) -> None:
    with transaction(db):
        db.execute(
            """INSERT INTO concept_checks (concept_key, fingerprint, outcome, checked_at) VALUES (?,?,?,?)
               ON CONFLICT(concept_key) DO UPDATE SET fingerprint=excluded.fingerprint, outcome=excluded.outcome,
                 checked_at=excluded.checked_at""",
            (key, fingerprint, outcome, time.time()),
        )


def _one(
    settings: Settings,
    db: sqlite3.Connection,
    entry: Unresolved,
    model: Callable[[], ChatProvider],
    report: ConceptReport,
    out_of_time: Callable[[], bool],
) -> str:
    """Decide one growth-queue name; returns the progress line."""
    name = entry.name
    relpath = concept_path(name, settings)
    if resolve_keys(db, [entry.key]).get(entry.key) or (settings.vault / relpath).exists():
        report.left_alone += 1
        return f"{name}: left alone - a page already answers to this name"
    found = mentions(db, name, settings.concept_max_paragraphs)
    fingerprint = _fingerprint(found)
    if not found or _already_checked(db, entry.key, fingerprint):
        report.unchanged += bool(found)
        report.undefined += not found
        reason = "not asked again - same paragraphs as the last check" if found else "no paragraph of the sources"
        return f"{name}: skipped - {reason}"
    try:
        candidates = _defining(name, found, model(), settings.analysis_attempts, report, out_of_time)
        verdict = definition.judge_definitions(candidates, name)
    except ProviderUnavailable:
        raise
    except (schema.SchemaFailed, ProviderError) as failed:
        report.failed += 1
        return f"{name}: failed - {failed}"
    if not verdict.enough:
        outcome = "one-definition" if verdict.defining else "undefined"
        report.one_definition += bool(verdict.defining)
        report.undefined += not verdict.defining
        _remember(db, entry.key, fingerprint, outcome)
        if verdict.defining:
            return f"{name}: skipped - one defining sentence in the sources; two are needed"
        return f"{name}: skipped - mentioned but never defined in the sources"
    quoted = verdict.defining
    atomic_write(settings.vault / relpath, page_text(name, relpath, quoted))
    sync_paths(settings, db, [relpath])
    _remember(db, entry.key, fingerprint, "written")
    report.written.append(relpath)
    return f"{name}: written {relpath} from {len(quoted)} defining sentences"


def spellings(db: sqlite3.Connection) -> dict[str, str]:
    """Every page title and alias by ``variant_key`` (case, diacritics, hyphen/space, plural folded) -> path."""
    rows = db.execute("SELECT title, path FROM pages UNION ALL SELECT alias, path FROM aliases").fetchall()
    return {variant_key(name): path for name, path in rows}


def write_concept_pages(
    settings: Settings,
    db: sqlite3.Connection,
    model: Callable[[], ChatProvider],
    out_of_time: Callable[[], bool],
    say: Callable[[str], None],
) -> ConceptReport:
    """Put each growth-queue name (most-wanted first) through the definition gate; write the pages it allows.
    ``model`` is called only when a name needs asking, so a pass with nothing to ask needs no model."""
    report = ConceptReport()
    spelt = spellings(db)
    for entry in unresolved(db, limit=settings.concept_pages_per_pass):
        if out_of_time():
            say("  stopped: time budget spent")
            break
        if "/" in entry.key:
            continue  # a link to a path that does not exist is a missing file, not a concept
        if twin := spelt.get(variant_key(entry.name)):
            report.left_alone += 1  # one thing, one page: whether it is that page's alias is name resolution's
            say(f"  {entry.name}: left alone - another spelling of {twin}'s name")
            continue
        try:
            written = len(report.written)
            say("  " + _one(settings, db, entry, model, report, out_of_time))
            if len(report.written) > written:
                spelt[variant_key(entry.name)] = report.written[-1]
        except BudgetSpent:
            say(f"  {entry.name}: not decided - the time budget ran out while asking")
            say("  stopped: time budget spent")
            break
    return report
