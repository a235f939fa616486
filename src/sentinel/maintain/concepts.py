"""Concept pages: written to wiki/ only where the sources define the concept, quoting them.

For a name in the growth queue: paragraphs that mention it (or another spelling of it: the Glossary's singular
for a plural title) are collected from non-derived pages (notes/, sources/, other: never wiki/, never
conversations/, never a quote callout: another page's words kept in a note, ``vault.quoted``). Sentences whose
shape the definition gate's code checks let through are put to the model twice:
"which say what X is?" and, for those, the contrary "which only use or mention X?"; the gate keeps a sentence
only on yes-then-no plus its own checks. One is enough (a vault says what a thing is once: on its own page or in
a glossary); none leaves the name in the queue. The page quotes those sentences with links to their sources,
lists every file it was written from, and records per quote where it was found (``trace.locate``) so
``sentinel trace`` can check it later. A name that already resolves to a page, or whose page file exists, is
left alone: the person may have created it. So is a name that is another spelling of a page's title or alias
(``Core plugins`` beside a page ``core plugin``; Workspace, the interface, beside Workspaces, the plugin): one
thing gets one page, and name resolution decides whether the spelling becomes that page's alias. The growth
queue is the derived gate's (``derived.growth_queue``), and a name that is not shaped like one (``concept_name``)
is never asked about.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from sentinel.gates import concept_name, definition, derived, schema
from sentinel.gates.verbatim import contains_verbatim, normalise
from sentinel.index.fold import forms
from sentinel.index.migrations import transaction
from sentinel.index.queries import Unresolved
from sentinel.index.resolve import resolve_keys
from sentinel.index.sync import sync_paths
from sentinel.maintain import ledger, trace
from sentinel.paths import DEFINING_ROLES, concept_path, page_name, without_md
from sentinel.providers import ChatProvider, ChatResult, Message, ProviderError, ProviderUnavailable
from sentinel.settings import Settings
from sentinel.vault.hashes import body_hash, mentions_fingerprint
from sentinel.vault.links import text_without_link_markup
from sentinel.vault.name_words import folded, variant_key
from sentinel.vault.parse import split_frontmatter
from sentinel.vault.quoted import is_quoted
from sentinel.vault.write import atomic_write

_WORD = re.compile(r"\w+")
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+")


class DefiningReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    defining: Annotated[list[int], Field(max_length=20)]  # bounded in the schema: a small model cannot loop


class MentioningReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    only_mentioning: Annotated[list[int], Field(max_length=20)]


@dataclass(frozen=True)
class Mention:
    source: str
    paragraph: str
    sentences: list[str]  # the paragraph's sentences that carry the name verbatim or another spelling of it
    language: str  # the paragraph's language, by its stop words ("" when they do not tell)


@dataclass
class ConceptReport:
    written: list[str] = field(default_factory=list)
    taken_up: int = 0  # growth-queue names looked at this pass
    not_a_name: int = 0  # refused by the concept-name gate, never asked about
    no_paragraph: int = 0  # no paragraph of the sources carries the name (part of ``undefined``)
    undefined: int = 0  # mentioned, never defined
    one_definition: int = 0
    left_alone: int = 0
    unchanged: int = 0  # same paragraphs as the last check: not asked again
    failed: int = 0  # the model's replies failed the schema
    calls: list[ChatResult] = field(default_factory=list)


def mentions(db: sqlite3.Connection, name: str, limit: int) -> list[Mention]:
    """Paragraphs of non-derived pages that carry ``name`` verbatim, in path order, at most ``limit``: the name's
    contexts, as name resolution reads them (a spelling there may be another thing: Workspace / Workspaces)."""
    found: list[Mention] = []
    for mention in _paragraphs(db, name, spellings=False):
        found.append(mention)
        if len(found) >= limit:
            break
    return found


def defining_mentions(db: sqlite3.Connection, name: str, limit: int) -> list[Mention]:
    """Paragraphs of non-derived pages that carry ``name`` or a spelling of it, at most ``limit``: those with a
    sentence of definitional shape first, then the rest, each in path order. A name mentioned in fifty
    paragraphs is defined in the Glossary or on a page late in path order; a cut in path order alone never
    reached it (Core plugins, Hotkeys in the held-back bench)."""
    found = list(_paragraphs(db, name, spellings=True))
    return sorted(found, key=lambda m: not any(definition.worth_asking(s, name, m.language) for s in m.sentences))[
        :limit
    ]


def _paragraphs(db: sqlite3.Connection, name: str, spellings: bool) -> Iterator[Mention]:
    words = _WORD.findall(name)
    if not words:
        return
    roles = sorted(role.value for role in DEFINING_ROLES)
    # the name as each language's chunks hold it (German, Spanish and Turkish words are stemmed: index.fold)
    query = " OR ".join('"' + form + '"' for form in forms(" ".join(words)))
    if spellings:
        # Or its folded words with the last as a prefix: its other spellings ("attachment" for Attachments, "Web
        # viewer" for Web-Viewer), which ``definition.names_concept`` then checks.
        query += ' OR "' + " ".join(folded(name)) + '" *'

    def carries(text: str) -> bool:
        return definition.names_concept(text, name) if spellings else contains_verbatim(normalise(text), name)

    rows = db.execute(
        f"""SELECT c.path, c.text FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN pages p ON p.path = c.path
            WHERE chunks_fts MATCH ? AND p.role IN ({",".join("?" * len(roles))}) ORDER BY c.path, c.ordinal""",
        (query, *roles),
    )
    seen: set[str] = set()
    for path, text in rows:
        for raw in _PARAGRAPH.split(text):
            if is_quoted(raw):
                continue  # another page's words quoted in a note: that page is the source, read on its own
            paragraph = text_without_link_markup(raw).strip()
            key = normalise(paragraph)
            if key in seen or not carries(paragraph):
                continue
            seen.add(key)
            sentences = [_LIST_MARK.sub("", s).strip() for s in _SENTENCE_END.split(paragraph)]
            naming = [s for s in sentences if s and carries(s)]
            if not naming:
                continue  # the name runs across a sentence break: no sentence of it could be quoted
            yield Mention(path, paragraph, naming, definition.language_of(paragraph))


def _sentences_question(system: str, name: str, paragraph: str, sentences: list[str], ask: str) -> list[Message]:
    """The definition gate's two questions share their shape: the term, its paragraph, its sentences numbered
    (what the answer's numbers point back into), then what is asked of them."""
    numbered = "\n".join(f"{i}. {sentence}" for i, sentence in enumerate(sentences, 1))
    return [
        {"role": "system", "content": system},
        {
            "role": "user",
            "content": (
                f'Term: "{name}"\n\nParagraph:\n{paragraph}\n\nSentences of it that mention "{name}":\n'
                f"{numbered}\n\n{ask}"
            ),
        },
    ]


def _question(name: str, paragraph: str, sentences: list[str]) -> list[Message]:
    return _sentences_question(
        "You judge whether sentences define a term. Reply with JSON only.",
        name,
        paragraph,
        sentences,
        f"Which of these sentences say what {name} is: what the thing is, means or refers to, not only that it is "
        'used or mentioned? Return a JSON object {"defining": [numbers of the sentences that define it]}, with an '
        "empty list if none does.",
    )


def _contrary(name: str, paragraph: str, sentences: list[str]) -> list[Message]:
    return _sentences_question(
        "You judge how sentences use a term. Reply with JSON only.",
        name,
        paragraph,
        sentences,
        f"Which of these sentences only use or mention {name} (tell what to do with it, where it is, that it "
        f'exists) without saying what {name} is? Return a JSON object {{"only_mentioning": [numbers of those '
        "sentences]}, with an empty list if none.",
    )


class BudgetSpent(Exception):
    """The time budget ran out between two questions about one name: the name is left undecided."""


def _picked(numbers: list[int], sentences: list[str]) -> set[str]:
    return {sentences[n - 1] for n in numbers if 1 <= n <= len(sentences)}


def _defining(
    name: str,
    found: list[Mention],
    model: ChatProvider,
    settings: Settings,
    report: ConceptReport,
    out_of_time: Callable[[], bool],
) -> list[definition.Candidate]:
    """Ask about every sentence the gate's code checks let through; the candidates carry both answers."""
    candidates: list[definition.Candidate] = []
    budget = {"attempts": settings.analysis_attempts, "max_tokens": settings.analysis_reply_tokens}
    for mention in found:
        askable = [s for s in mention.sentences if definition.worth_asking(s, name, mention.language)]
        if not askable:
            continue
        if out_of_time():
            raise BudgetSpent
        first = schema.gated_call(model, _question(name, mention.paragraph, askable), DefiningReply, **budget)
        report.calls += first.results
        defines = _picked(first.reply.defining, askable)
        mentions_only: set[str] = set()
        if defines:
            said = [s for s in askable if s in defines]
            second = schema.gated_call(model, _contrary(name, mention.paragraph, said), MentioningReply, **budget)
            report.calls += second.results
            mentions_only = _picked(second.reply.only_mentioning, said)
        for sentence in askable:
            candidates.append(
                definition.Candidate(
                    sentence, mention.source, mention.language, sentence in defines, sentence in mentions_only
                )
            )
    return candidates


def page_text(name: str, relpath: str, quoted: list[definition.Candidate], settings: Settings) -> str:
    """The concept page: the defining sentences quoted with links to their sources, then the Sources list.

    The frontmatter records, per quote, where it was found (source, heading trail, span, source hash) and the
    hash of the body as written, so ``sentinel trace`` can tell an intact chain from an edited one. When the
    file name had to differ from the name (characters a file name cannot hold), the name is kept as an alias
    so links written with it still resolve to the page.
    """
    sources = list(dict.fromkeys(d.source for d in quoted))
    lines = [f"# {name}", ""]
    for item in quoted:
        lines += [f"> {item.sentence}", f"> — [[{without_md(item.source)}|{page_name(item.source)}]]", ""]
    lines += ["## Sources", "", *(f"- [[{without_md(source)}]]" for source in sources), ""]
    body = "\n".join(lines)
    meta: dict[str, object] = {"generated_by": trace.GENERATED_BY, "sources": sources}
    if page_name(relpath) != name:
        meta["aliases"] = [name]
    meta["quotes"] = [trace.locate(settings.vault, item.source, item.sentence) for item in quoted]
    meta["body_sha256"] = body_hash(body)
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n" + body


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
    found = defining_mentions(db, name, settings.concept_max_paragraphs)
    fingerprint = mentions_fingerprint((mention.source, mention.paragraph) for mention in found)
    if not found or _already_checked(db, entry.key, fingerprint):
        report.unchanged += bool(found)
        report.undefined += not found
        report.no_paragraph += not found
        reason = "not asked again - same paragraphs as the last check" if found else "no paragraph of the sources"
        return f"{name}: skipped - {reason}"
    try:
        candidates = _defining(name, found, model(), settings, report, out_of_time)
        verdict = definition.judge_definitions(candidates, name)
    except ProviderUnavailable:
        raise
    except (schema.CallRefused, ProviderError) as failed:
        report.failed += 1
        return f"{name}: failed - {failed}"
    if not verdict.passed:
        outcome = "one-definition" if verdict.kept else "undefined"
        report.one_definition += bool(verdict.kept)
        report.undefined += not verdict.kept
        _remember(db, entry.key, fingerprint, outcome)
        if verdict.kept:
            return f"{name}: skipped - {len(verdict.kept)} defining sentences in the sources; more are needed"
        return f"{name}: skipped - mentioned but never defined in the sources"
    quoted = verdict.kept
    text = page_text(name, relpath, quoted, settings)
    atomic_write(settings.vault / relpath, text)
    ledger.record(settings.vault / relpath, None, text, _evidence(name, quoted, text))
    sync_paths(settings, db, [relpath])
    _remember(db, entry.key, fingerprint, "written")
    report.written.append(relpath)
    return f"{name}: written {relpath} from {len(quoted)} defining sentences"


def _evidence(name: str, quoted: list[definition.Candidate], page: str) -> dict[str, object]:
    """What let the page through, for the pass's ledger: each sentence with where it sits in its source (the
    locator the page recorded) and both of the model's answers."""
    located = {(q["sentence"], q["source"]): q for q in _recorded_quotes(page)}
    sentences = []
    for item in quoted:
        where = located.get((item.sentence, item.source), {})
        sentences.append(
            {
                "sentence": item.sentence,
                "source": item.source,
                "span": where.get("span"),
                "heading": where.get("heading") or "(top)",
                "language": item.language or "unknown",
                "says what it is": "yes" if item.says_what_it_is else "no",
                "only mentions it": "yes" if item.only_mentions else "no",
            }
        )
    return {"concept page": name, "defining sentences": sentences}


def _recorded_quotes(page: str) -> list[dict[str, Any]]:
    quotes = split_frontmatter(page)[0].get("quotes") or []
    return [q for q in quotes if isinstance(q, dict)]


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
    for entry in derived.growth_queue(db, settings.concept_pages_per_pass).kept:
        if out_of_time():
            say("  stopped: time budget spent")
            break
        if "/" in entry.key:
            continue  # a link to a path that does not exist is a missing file, not a concept
        report.taken_up += 1
        if not concept_name.well_formed([entry.name]).passed:
            report.not_a_name += 1
            continue  # a sentence or markup in a link target is not a name to write a page about
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
