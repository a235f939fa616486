"""When the vault does not answer, does the packet say so? And does every answerable question keep its passage?

The decision is made before the model writes: ``answer.packet`` builds the packet (the body rung's passages) and
a rule lets passages in or leaves the question with "the vault does not say". For each question this bench
builds the packet as the pipeline does (``followup.asked`` on the question alone, ``build_packet`` with the
pipeline's budget), then asks each rule below which passages it lets in. Printed per set and language:

- bench/unanswerable_set.tsv (40 questions, 10 a language, none answered by the eval vault; per language the 5
  with the smallest sha256 of the text choose, the other 5 report, fixed before any run): questions left with
  nothing (want high);
- answerable questions that keep a passage of a right page (the floor): choosing on bench/answers_set.tsv,
  bench/followups_set.tsv's first questions (a follow-up's earlier question, a new question's own turn),
  the vault turns of bench/browser_turns*.tsv that continue nothing (the page by title), and the vault question
  sets bench/retrieval.py chooses on (``retrieval.CHOOSING``: public, vault-choose, the blind sets read
  before its round); reporting on vault-report and heldout (and heldout's questions labelled ``-``, which the
  vault does not answer).

The report halves are printed only with ``--report``, run once, after the rule was chosen on the choosing
halves (docs/answers.md, "the vault does not say").

    SENTINEL_EVAL_VAULT=DIR PYTHONPATH=src:. .venv/bin/python -m bench.unanswered --index FILE [--report]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench import retrieval
from bench.built_index import built_index
from bench.unanswered_namings import NAMINGS, PAIRS, SHIPPED_NAMING
from bench.unanswered_questions import (
    Question,
    answerable_choosing,
    answerable_reporting,
    browser_unanswerable,
    heldout_unanswerable,
    unanswerable,
    unheld,
)
from bench.unanswered_stems import STEM_RULES, changed, whole_words
from sentinel.answer.followup import asked
from sentinel.answer.packet import Packet, build_packet, lets_in, relevant, shares_words
from sentinel.answer.pipeline import budget_tokens
from sentinel.answer.unnamed import unnamed
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.gates.support import STEM, content_words
from sentinel.index.db import open_index
from sentinel.index.fold import fold
from sentinel.search.lexical import query_language
from sentinel.search.postings import frequencies
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from tests.support.embedder import E5_DIR
from tests.support.eval_data import eval_vault_path


@dataclass(frozen=True)
class Let:
    """A passage as the rules read it."""

    path: str
    title: str
    stems: frozenset[str]  # of title + trail + text
    cosine: float  # ``Passage.cosine``: the question as a query, the passage as the model reads it
    shipped: bool  # ``packet.lets_in`` as the code stands
    whole: frozenset[str] = frozenset()  # its content words, folded, uncut (``unanswered_stems``)
    snowball: frozenset[str] = frozenset()  # the same, each as the question's language stems it


@dataclass(frozen=True)
class Seen:
    """A question's packet as the rules read it: each passage's words (stems) and page, the question's words
    (stems) with how many chunks hold each (its commonest form's count)."""

    question: Question
    passages: tuple[Let, ...]
    words: dict[str, int]  # stem -> chunks holding it
    chunks: int
    shipped: bool  # packet.relevant as the code stands
    names: dict[str, str]  # per ``NAMINGS`` variant: the name the question holds that no chunk holds ("" none)
    asked: frozenset[str] = frozenset()  # the question's content words, folded, uncut
    asked_snowball: frozenset[str] = frozenset()  # the same, as its language stems them


def seen(ctx: ToolContext, question: Question, budget: int) -> Seen:
    packet: Packet = build_packet(
        ctx, asked([question.text]).searched, passages=ctx.settings.answer.passages, budget_tokens=budget
    )
    db = ctx.reader()
    language, _ = query_language(db, question.text)
    words: dict[str, int] = {}
    for raw in re.findall(r"[^\W_]+", question.text):  # a word as the index reads one
        for word in content_words(raw):  # the folded word, when it carries a claim
            count = max(frequencies(db, list({fold(raw, language), word})).values())  # stemmed as indexed, or not
            words[word[:STEM]] = max(words.get(word[:STEM], 0), count)
    chunks = int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])
    passages = tuple(
        Let(
            p.path,
            p.title,
            frozenset(w[:STEM] for w in content_words(f"{p.title} {p.trail} {p.text}")),
            p.cosine if p.cosine is not None else 1.0,
            lets_in(p, packet.question),
            *whole_words(f"{p.title} {p.trail} {p.text}", language),
        )
        for p in packet.passages
    )
    assert all(
        shares_words(p, packet.question) == bool(set(words) & passages[i].stems) for i, p in enumerate(packet.passages)
    )
    names = {name: unnamed(db, packet.question, **settings) for name, settings in NAMINGS.items()}
    return Seen(question, passages, words, chunks, relevant(packet), names, *whole_words(packet.question, language))


def _idf(count: int, chunks: int) -> float:
    return max(math.log((chunks - count + 0.5) / (count + 0.5)), 1e-6)  # FTS5's bm25 idf


Rule = Callable[[Seen, Let], bool]  # lets a passage in for a question


def _today(s: Seen, p: Let) -> bool:
    return bool(set(s.words) & p.stems)


def _shipped(s: Seen, p: Let) -> bool:
    return p.shipped


def _known_words(s: Seen, p: Let) -> bool:
    """Today's rule, and no word of the question (4+ letters, no digit) is absent from every chunk."""
    unknown = any(c == 0 and len(w) >= 4 and not w.isdigit() for w, c in s.words.items())
    return not unknown and _today(s, p)


def _cosine(t: float) -> Rule:
    return lambda s, p: p.cosine >= t and _today(s, p)


def _cosine_unknown(t: float, unknown_t: float) -> Rule:
    """``_cosine(t)``, and ``unknown_t`` when the question holds a word no chunk holds."""

    def rule(s: Seen, p: Let) -> bool:
        unknown = any(c == 0 and len(w) >= 4 and not w.isdigit() for w, c in s.words.items())
        return p.cosine >= (unknown_t if unknown else t) and _today(s, p)

    return rule


def _rarest(k: int) -> Rule:
    def rule(s: Seen, p: Let) -> bool:
        counts = sorted(set(s.words.values()))[:k]
        return any(w in p.stems for w, c in s.words.items() if c in counts)

    return rule


def _share(t: float) -> Rule:
    return lambda s, p: bool(s.words) and len(set(s.words) & p.stems) / len(s.words) >= t


def _idf_share(t: float) -> Rule:
    def rule(s: Seen, p: Let) -> bool:
        total = sum(_idf(c, s.chunks) for c in s.words.values())
        return total > 0 and sum(_idf(c, s.chunks) for w, c in s.words.items() if w in p.stems) / total >= t

    return rule


def _shipped_unless_named(naming: str) -> Rule:
    """The shipped rule, and nothing let in when the question names a thing no chunk holds (``naming``)."""
    return lambda s, p: p.shipped and not s.names[naming]


RULES: dict[str, Rule] = {
    "one shared word (before h49h)": _today,
    "shipped (packet.lets_in)": _shipped,
    "rarest word": _rarest(1),
    "one of 2 rarest": _rarest(2),
    "share >= 1/3": _share(1 / 3),
    "share >= 1/2": _share(1 / 2),
    "idf share >= .25": _idf_share(0.25),
    "idf share >= .40": _idf_share(0.40),
    "idf share >= .50": _idf_share(0.50),
    "no word the vault never holds": _known_words,
    **{f"cosine >= {t:.2f}": _cosine(t) for t in (0.78, 0.80, 0.82, 0.84)},
    **{f"cosine >= .82, >= {u:.2f} with a word no chunk holds": _cosine_unknown(0.82, u) for u in (0.86, 0.88)},
    **{f"shipped, none when it names an unknown ({n})": _shipped_unless_named(n) for n in NAMINGS},
    **STEM_RULES,
}


def outcome(s: Seen, rule: Rule) -> bool:
    """Unanswerable: left with nothing. Answerable: a passage of a right page let in."""
    let_in = [(p.path, p.title) for p in s.passages if rule(s, p)]
    if not s.question.pages:
        return not let_in
    return any((title if s.question.by_title else path) in s.question.pages for path, title in let_in)


def tabulate(title: str, seen_all: list[Seen]) -> None:
    sets = list(dict.fromkeys(s.question.set for s in seen_all))
    print(f"\n### {title}\n")
    print(
        "| rule | "
        + " | ".join(f"{name} ({sum(s.question.set == name for s in seen_all)})" for name in sets)
        + " | answerable, all | unanswerable, all |"
    )
    print("|---|" + "---|" * (len(sets) + 2))
    for name, rule in RULES.items():
        cells = [str(sum(outcome(s, rule) for s in seen_all if s.question.set == each)) for each in sets]
        ans = [s for s in seen_all if s.question.pages]
        non = [s for s in seen_all if not s.question.pages]
        pooled = [
            f"{sum(outcome(s, rule) for s in group)}/{len(group)} ({_pct(group, rule)})" if group else "-"
            for group in (ans, non)
        ]
        print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(pooled) + " |")
    langs = sorted({s.question.lang for s in seen_all if s.question.lang in ("en", "de", "es", "tr")})
    print(
        "\n| rule | "
        + " | ".join(f"answerable {lang}" for lang in langs)
        + " | "
        + " | ".join(f"unanswerable {lang}" for lang in langs)
        + " |"
    )
    print("|---|" + "---|" * (2 * len(langs)))
    for name, rule in RULES.items():
        cells = []
        for answers in (True, False):
            for lang in langs:
                group = [s for s in seen_all if s.question.lang == lang and bool(s.question.pages) == answers]
                cells.append(f"{sum(outcome(s, rule) for s in group)}/{len(group)}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def told(title: str, seen_all: list[Seen]) -> None:
    """Each naming as a preface, not a silence: "The vault does not mention X" before what the shipped rule (with
    its capitalised word) lets in. Unanswerable: told (left with nothing, or named). Answerable: a right passage
    kept under a name no chunk holds (the preface a person reads over a real answer)."""
    silenced = _shipped_unless_named(SHIPPED_NAMING)
    non = [s for s in seen_all if not s.question.pages]
    kept = [s for s in seen_all if s.question.pages and outcome(s, silenced)]
    print(f"\n### {title}: as a preface\n")
    print(f"| naming | unanswerable told ({len(non)}) | answerable kept, prefaced ({len(kept)}) |")
    print("|---|---|---|")
    for name in NAMINGS:
        said = sum(outcome(s, silenced) or bool(s.names[name]) for s in non)
        print(f"| {name} | {said} | {sum(bool(s.names[name]) for s in kept)} |")


def paired(title: str, seen_all: list[Seen]) -> None:
    """Each ``PAIRS`` entry: one naming silences (nothing let in), another is said before what is let in.
    Unanswerable: silenced, and told (silenced or named). Answerable: a right passage kept under the silence, and of
    those the ones prefaced."""
    non = [s for s in seen_all if not s.question.pages]
    ans = [s for s in seen_all if s.question.pages]
    print(f"\n### {title}: silence and preface together\n")
    print(
        f"| pair | unanswerable silenced ({len(non)}) | unanswerable told ({len(non)}) "
        f"| answerable kept ({len(ans)}) | answerable kept, prefaced |"
    )
    print("|---|---|---|---|---|")
    for name, (silence, preface) in PAIRS.items():
        silenced = _shipped_unless_named(silence)
        kept = [s for s in ans if outcome(s, silenced)]
        quiet = sum(outcome(s, silenced) for s in non)
        said = sum(outcome(s, silenced) or bool(s.names[preface]) for s in non)
        print(f"| {name} | {quiet} | {said} | {len(kept)} | {sum(bool(s.names[preface]) for s in kept)} |")


def _pct(group: list[Seen], rule: Rule) -> str:
    return f"{100 * sum(outcome(s, rule) for s in group) / len(group):.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=built_index, required=True, help="an index of the eval vault with vectors")
    parser.add_argument("--report", action="store_true", help="the report halves too (once, after choosing)")
    parser.add_argument("--show", action="store_true", help="each unanswerable question's passages let in")
    args = parser.parse_args()
    settings = Settings(vault=eval_vault_path(), index_path=args.index, _env_file=None)
    open_index(settings).close()
    ctx = ToolContext(settings=settings, embedder=OnnxEmbedder(E5_DIR, threads=1))
    budget = budget_tokens(None, settings.answer.reply_tokens)
    present = retrieval.vault_pages(ctx.reader())
    if not present:
        parser.error(f"the index at {args.index} holds no pages: index the eval vault into it first")
    started, cpu, load = time.monotonic(), time.process_time(), os.getloadavg()[0]
    choosing = [
        seen(ctx, q, budget)
        for q in unanswerable("choose")
        + browser_unanswerable()
        + [q for q in unheld() if not q.pages]
        + answerable_choosing(present)
    ]
    tabulate("choosing halves", choosing)
    told("choosing halves", choosing)
    paired("choosing halves", choosing)
    if args.show:
        changed(choosing, outcome)
        for s in choosing:
            if not s.question.pages:
                print(f"- {s.question.text} words {s.words} -> {[(p.title, round(p.cosine, 3)) for p in s.passages]}")
        for s in choosing:
            if s.question.pages and any(s.names.values()):
                named = {n: found for n, found in s.names.items() if found}
                print(f"- answerable, named unknown: {s.question.set} {s.question.text!r} {named}")
        for s in choosing:
            if not s.question.pages:
                named = {n: found for n, found in s.names.items() if found}
                print(f"- unanswerable, named: {s.question.text!r} {named}")
        for s in choosing:
            moved = [name for name, (silence, _) in PAIRS.items() if s.names[silence] != s.names[SHIPPED_NAMING]]
            if moved:
                kind = "answerable" if s.question.pages else "unanswerable"
                named = s.names[SHIPPED_NAMING]
                print(f"- {kind}, silenced by the shipped pair only: {s.question.text!r} {named!r} {moved}")
    if args.report:
        reporting = [
            seen(ctx, q, budget)
            for q in unanswerable("report") + heldout_unanswerable() + answerable_reporting(present)
        ]
        tabulate("report halves (read once)", reporting)
        told("report halves (read once)", reporting)
        paired("report halves (read once)", reporting)
    wall, used = time.monotonic() - started, time.process_time() - cpu
    print(f"\n{wall:.1f} s wall, {used:.1f} s CPU; load {load:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
