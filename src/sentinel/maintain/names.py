"""Name resolution: an unresolved name becomes an alias of a page where the vault says so, or where the vault
points at it and the model confirms it; everything else defers.

Candidate pairs are found by code: each growth-queue name against the titles and aliases of pages that may carry
an alias, paired when they look alike or are spellings of one name (case, diacritics, hyphen/space, plural:
``name_words.variant_key``), when parallel pages put the name where they link a page, or when a link shows a
page under the name (``sameness.VaultEvidence``). Then, in order, and the first rule that speaks decides:

1. a name that has a page of its own is never an alias of another (two-pages gate: ``different``), unless the
   vault states the two pages are one thing in two languages (below);
2. the vault's own statements of sameness merge without asking the model (``gates.stated_same``): the link
   resolver reaches the page by both names, the two names are the titles of parallel pages (one permalink in
   two language folders), or one page names the other as its translation; later, a link's display text and a
   declared alias (4);
3. the names' shape: different numbers, platform/product qualifiers, opposite/ordinal/tier words, or (for a
   pair that is not a translation the parallel pages point at) one word replaced by another mean two things
   (``different``); one name inside the other defers (``unclear``);
4. the vault's sentences: one naming both apart, or joining two spellings with "and", means two things
   (contexts, coordination gates); then a spelling the vault shows the page under (``[[Core plugins|core
   plugin]]``) or a spelling of an alias the page declares merges without the model;
5. the model is asked only where code evidence points at the pair (``gates.pointed``), else ``unclear``
   (``no_evidence``): a translation the parallel pages align is confirmed by "same?", the swapped "same?" and the
   contrary "different, or a kind or part?"; a spelling of one name, or a translation whose sentences share an
   embed or code (after the one-language gate), needs those three answers and "do the sentences fit one
   thing?". Any answer not agreeing is ``unconfirmed``.

Only such a pair becomes an alias in the page's frontmatter (``aliases.add_alias``); a translation becomes an
alias in the other language, so a Turkish link or query reaches the English page. The decision carries every
answer and the rule that let it through (``Decision.evidence``) for the pass's ledger, and every gate that
stopped a pair is counted (``NamesReport.deferred_by``). Every verdict is remembered, so a settled pair is not
asked again. A model that says yes to everything merges nothing the vault does not state (the contrary gate).
"""

from __future__ import annotations

import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from sentinel.gates import (
    consistent,
    contexts,
    contrary,
    coordinated,
    derived,
    numbers,
    one_language,
    opposites,
    pointed,
    qualifiers,
    reversal,
    schema,
    shape,
    shared_source,
    sibling,
    stated_same,
    two_pages,
)
from sentinel.gates.contrary import YesNo
from sentinel.gates.verbatim import normalise
from sentinel.index.migrations import transaction
from sentinel.index.resolve import resolve_keys
from sentinel.index.sync import sync_paths
from sentinel.maintain import name_questions as ask
from sentinel.maintain.aliases import AliasRefused, add_alias
from sentinel.maintain.concepts import mentions
from sentinel.maintain.sameness import VaultEvidence
from sentinel.paths import ALIAS_TARGET_ROLES, concept_path
from sentinel.providers import ChatProvider, ChatResult, ProviderError, ProviderUnavailable
from sentinel.settings import Settings
from sentinel.vault.links import link_key, text_without_link_markup
from sentinel.vault.name_words import folded, variant_key

_COMMON_WORD_TITLES = 500
_CONTEXT_PARAGRAPHS = 6  # paragraphs per name read for the contexts gate and the consistency question
OUTCOMES: tuple[reversal.Outcome, ...] = ("same", "different", "unclear", "unconfirmed")


@dataclass(frozen=True)
class Pair:
    name: str  # the unresolved name, as most links spell it
    key: str
    title: str  # the page title or alias it resembles
    title_key: str
    path: str  # the page that title or alias belongs to
    similarity: float


@dataclass(frozen=True)
class Decision:
    """The verdict on one pair and everything that decided it (what the ledger records for an alias)."""

    verdict: reversal.Outcome
    gate: str = ""  # a merge: the statement or the confirmed pointer; else the gate that stopped it ("model": "same?")
    asked: reversal.Answer | None = None  # "same?" as the pair came (name, title)
    swapped: reversal.Answer | None = None  # "same?" with the pair swapped (title, name)
    contrary: YesNo | None = None  # "different things, or one a kind or part of the other?" ("no" lets it on)
    contexts: YesNo | None = None  # "do these sentences speak of one thing?" ("yes" lets it on)
    name_sentences: tuple[str, ...] = ()  # where the unresolved name appears (what the model was shown)
    title_sentences: tuple[str, ...] = ()  # where the title appears

    def evidence(self) -> dict[str, object]:
        """The decision as plain data, for the pass's ledger."""
        return {
            "verdict": self.verdict,
            "gate": self.gate,
            "asked": self.asked,
            "swapped": self.swapped,
            "contrary": self.contrary,
            "contexts": self.contexts,
            "name_sentences": list(self.name_sentences),
            "title_sentences": list(self.title_sentences),
        }


@dataclass
class NamesReport:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    aliases_written: list[tuple[str, str]] = field(default_factory=list)
    decisions: list[tuple[Pair, Decision]] = field(default_factory=list)  # every pair decided, in order
    calls: list[ChatResult] = field(default_factory=list)
    merged_by: dict[str, int] = field(default_factory=dict)  # rule or "model" -> merges it made
    deferred_by: dict[str, int] = field(default_factory=dict)  # gate -> pairs it stopped (different/unclear/...)

    def count(self, decision: Decision) -> None:
        self.counts[decision.verdict] += 1
        if decision.verdict == "same":
            self.merged_by[decision.gate or "model"] = self.merged_by.get(decision.gate or "model", 0) + 1
        else:
            gate = decision.gate or ("model" if decision.asked is not None else "undecided")
            self.deferred_by[gate] = self.deferred_by.get(gate, 0) + 1


def similarity(a: str, b: str) -> float:
    """Spelling similarity of two names after normalisation (difflib's ratio, 0..1)."""
    return SequenceMatcher(None, normalise(a), normalise(b)).ratio()


def _words(name: str) -> set[str]:
    return {w for w in folded(name) if len(w) >= 3}


def _squashed(name: str) -> str:
    return "".join(folded(name))  # "Core-Plugins" and "coreplugin": one spelling once spaces are gone


def candidate_pairs(db: sqlite3.Connection, settings: Settings, evidence: VaultEvidence | None = None) -> list[Pair]:
    """Undecided pairs of (growth-queue name, title or alias) that look alike, most alike first.

    Only titles sharing a (folded) word of three or more letters, or the same letters once spaces and
    punctuation are removed, are compared at all: a 100k-page vault is not compared name by name. Spellings of
    one name (``variant_key``: case, diacritics, hyphen/space, plural) are always paired, however short, and so
    is a name with every page parallel pages align it with, which need not look alike at all: a translation."""
    evidence = evidence or VaultEvidence.of(db)
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
        pointed_at = set(evidence.aligned.get(entry.key, ()))
        for index in sorted(near | {i for i, row in enumerate(titles) if row["path"] in pointed_at}):
            row = titles[index]
            title_key = normalise(row["name"])
            if title_key == normalise(entry.name) or (entry.key, title_key) in decided:
                continue
            score = similarity(entry.name, row["name"])
            if row["path"] in pointed_at:
                pairs.append(Pair(entry.name, entry.key, row["name"], title_key, row["path"], 1.0 + score))
            elif (
                score >= settings.resolve_min_similarity
                or _squashed(entry.name) == _squashed(row["name"])
                or variant_key(entry.name) == variant_key(row["name"])
            ):
                pairs.append(Pair(entry.name, entry.key, row["name"], title_key, row["path"], score))
    pairs.sort(key=lambda p: (-p.similarity, p.key, p.title_key, p.path))
    return pairs[: settings.resolve_max_pairs]


def _by_shape(a: str, b: str, translation: bool = False) -> Decision | None:
    """The name gates, each called through its module so that removing one is what the pass then does. For a
    translation the parallel pages align, a replaced word or an added one is what translating does
    (``Einführung in Obsidian Sync`` / ``Introduction to Obsidian Sync``): only numbers, qualifiers and opposite
    marks, which translations keep, are checked."""
    if not numbers.same_numbers(a, b).passed:
        return Decision("different", "numbers")
    if not qualifiers.same_qualifiers(a, b).passed:
        return Decision("different", "qualifiers")
    if not opposites.not_opposed(a, b).passed:
        return Decision("different", "opposites")
    if translation:
        return None
    if not sibling.no_replaced_word(a, b).passed:
        return Decision("different", "sibling")
    if not shape.no_added_words(a, b).passed:
        return Decision("unclear", "shape")
    return None


def sentences_of(db: sqlite3.Connection, name: str, page: str | None = None) -> tuple[str, ...]:
    """The sentences of the sources that carry ``name`` verbatim (a few paragraphs' worth, in path order),
    after the opening of ``name``'s own page when it has one: a page is about its title even where its body
    never repeats it."""
    opening = []
    if page is not None:
        row = db.execute("SELECT text FROM chunks WHERE path = ? ORDER BY ordinal LIMIT 1", (page,)).fetchone()
        if row is not None and (first := text_without_link_markup(row[0]).strip().split("\n", 1)[0].strip()):
            opening.append(first)
    found = (s for mention in mentions(db, name, _CONTEXT_PARAGRAPHS) for s in mention.sentences)
    return tuple(dict.fromkeys([*opening, *found]))


def stated(evidence: VaultEvidence, pair: Pair, name_page: str | None) -> str:
    """The vault's own statement that the pair is one thing, by the rule that found it ("" when none does)."""
    if stated_same.reached_by_both(pair.name, name_page, pair.path).passed:
        return "reached_by_both"
    if stated_same.parallel_pages(name_page, pair.path, evidence.permalinks).passed:
        return "parallel_pages"
    if stated_same.translation_link(name_page, pair.path, evidence.counterparts).passed:
        return "translation_link"
    return ""


def _decide(
    db: sqlite3.Connection,
    pair: Pair,
    model: Callable[[], ChatProvider],
    settings: Settings,
    report: NamesReport,
    evidence: VaultEvidence,
    name_page: str | None = None,
) -> Decision:
    """Decide one pair: the vault's statements, the names' shape, the vault's sentences, a piped spelling or a
    declared alias, then (only where code evidence points at the pair) the model's confirmation. ``model`` is
    called only when a question is asked."""
    if rule := stated(evidence, pair, name_page):
        return Decision("same", rule)
    aligned = pointed.aligned(pair.path, evidence.aligned.get(pair.key, ()))
    by_shape = _by_shape(pair.name, pair.title, translation=aligned.passed)
    if by_shape is not None:
        return by_shape
    name_sentences, title_sentences = sentences_of(db, pair.name), sentences_of(db, pair.title, pair.path)
    seen = Decision("unconfirmed", name_sentences=name_sentences, title_sentences=title_sentences)
    if aligned.passed:
        return _confirmed(pair, model, settings, report, replace(seen, gate="aligned"), fits=False)
    if not contexts.never_named_apart(pair.name, pair.title, (*name_sentences, *title_sentences)).passed:
        return replace(seen, verdict="different", gate="contexts")
    if not coordinated.spellings_kept_apart(pair.name, pair.title, (*name_sentences, *title_sentences)).passed:
        return replace(seen, verdict="different", gate="coordinated")
    if stated_same.shown_as(pair.name, pair.title, evidence.displays.get(pair.path, [])).passed:
        return replace(seen, verdict="same", gate="shown_as")
    if stated_same.declared_alias(pair.name, name_page, evidence.declared.get(pair.path, [])).passed:
        return replace(seen, verdict="same", gate="declared_alias")
    if pointed.spelling_of(pair.name, pair.title).passed:
        return _confirmed(pair, model, settings, report, replace(seen, gate="spelling"), fits=True)
    if set(folded(pair.name)) & set(folded(pair.title)):
        return replace(seen, verdict="unclear", gate="no_evidence")  # alike, not a spelling: nothing points
    if not one_language.shown_as_translation(pair.name, pair.title, name_sentences, title_sentences).passed:
        return replace(seen, verdict="unclear", gate="one_language")
    if not shared_source.share_a_source(pair.name, pair.title, name_sentences, title_sentences).passed:
        return replace(seen, verdict="unclear", gate="shared_source")
    return _confirmed(pair, model, settings, report, replace(seen, gate="shared_source"), fits=True)


def _confirmed(
    pair: Pair,
    model: Callable[[], ChatProvider],
    settings: Settings,
    report: NamesReport,
    seen: Decision,
    fits: bool,
) -> Decision:
    """The model's confirmation of a pair code evidence points at (``seen.gate`` names the pointer): "same?",
    the swapped "same?", the contrary, and where ``fits`` "do the sentences fit one thing?". A merge keeps the
    pointer as its gate; a pair any answer stops is counted against the gate that stopped it."""
    pointer, attempts, asker = seen.gate, settings.analysis_attempts, model()
    name_sentences, title_sentences = seen.name_sentences, seen.title_sentences
    asked = ask.same(pair.name, name_sentences, pair.title, title_sentences)
    first = ask.ask_same(asker, asked, attempts, report.calls)
    if first != "same":
        return replace(seen, verdict=first, asked=first, gate="model")
    swapped_question = ask.same(pair.title, title_sentences, pair.name, name_sentences)
    answers = replace(seen, asked=first, swapped=ask.ask_same(asker, swapped_question, attempts, report.calls))
    if not reversal.confirmed_by_reversal(first, answers.swapped).passed:
        return replace(answers, gate="reversal")
    answers = replace(
        answers, contrary=ask.ask_yes_no(asker, ask.contrary(pair.name, pair.title), attempts, report.calls)
    )
    if not contrary.denies_difference(answers.contrary).passed:
        return replace(answers, gate="contrary")
    if fits:
        fits_question = ask.one_thing(pair.name, name_sentences, pair.title, title_sentences)
        answers = replace(answers, contexts=ask.ask_yes_no(asker, fits_question, attempts, report.calls))
        if not consistent.contexts_agree(name_sentences, title_sentences, answers.contexts).passed:
            return replace(answers, gate="consistent")
    return replace(answers, verdict="same", gate=pointer)


def _own_page(db: sqlite3.Connection, settings: Settings, name: str) -> str | None:
    """The page ``name`` already answers to (title, alias, or a concept page file not yet indexed), if any."""
    key = link_key(name)
    found = resolve_keys(db, [key]).get(key)
    if found:
        return found
    relpath = concept_path(name, settings)
    return relpath if (settings.vault / relpath).exists() else None


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
    """Decide each candidate pair; write an alias for every pair the vault states or points at and the model
    confirms."""
    report = NamesReport()
    evidence = VaultEvidence.of(db)
    merged: set[str] = set()  # an unresolved name gets at most one alias per pass
    for pair in candidate_pairs(db, settings, evidence):
        if out_of_time():
            say("  stopped: time budget spent")
            break
        if pair.key in merged:
            continue
        name_page = _own_page(db, settings, pair.name)
        if (
            not two_pages.one_page(name_page, pair.path).passed
            and not stated_same.parallel_pages(name_page, pair.path, evidence.permalinks).passed
        ):
            decision = Decision("different", "two_pages")
        else:
            try:
                decision = _decide(db, pair, model, settings, report, evidence, name_page)
            except ProviderUnavailable:
                raise
            except (schema.CallRefused, ProviderError) as failed:
                say(f"  {pair.name} / {pair.title}: not decided - {failed}")
                continue
        if decision.verdict == "same":
            try:
                add_alias(settings.vault / pair.path, pair.name, {"same as": pair.title, **decision.evidence()})
            except (AliasRefused, OSError) as refused:
                say(f"  {pair.name} / {pair.title}: same, but the alias was not written - {refused}")
                continue
            sync_paths(settings, db, [pair.path])
            merged.add(pair.key)
            report.aliases_written.append((pair.name, pair.path))
            say(f"  {pair.name} -> alias of {pair.path} ({decision.gate})")
        report.count(decision)
        report.decisions.append((pair, decision))
        _remember(db, pair, decision.verdict)
    return report
