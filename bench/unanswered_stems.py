"""The rules ``bench/unanswered.py`` ranks for a passage let in on a shared stem alone (stop 53, h53e).

Seen in the browser (stop 52, row 8 of bench/browser_turns_fifth.tsv, a spent file): "¿obsidian se puede conectar
con spotify pa poner musica mientras escribo?" showed an example sentence of the linking tutorial. The one decision
(``packet.lets_in``) needs a shared content word, and a word counts as shared when the passage holds one with the
same first ``STEM`` letters: "escribo" met "Escribe" and "Escritorio". A word's first five letters stand for its
inflections ("transcripts" / "transcript", "klasörü" / "klasör"), and also for other words that open alike.

Committed before any was ranked, each also under the shipped cosine floor (``packet.MIN_COSINE``):
- a word shared whole: the passage holds one of the question's content words as the question folds it;
- a word shared whole or by its Snowball stem, in the question's language (the lexical leg's stems: "escribo"
  and "Escribe" are "escrib", "Escritorio" is not; English is not stemmed, so there a word whole);
- a word shared whole, or two words by their first letters;
- a passage sharing first letters only is held to a higher cosine (.84, .86).
Added after row 8's packet was read on the eval index, before any was ranked: the row's linking passage also
shares "mientras" whole, a conjunction the function words lack (its other passage shares "poner" / "ponerse").
So the subordinating conjunctions that join a clause and name nothing (``CONJUNCTIONS``, from the four languages'
grammar, not from a set) are read as no shared word, under the shipped rule, the whole word, and the Snowball stem.

Ranked once on the choosing halves (docs/answers.md, "Stop 53, h53e"): none ships. The whole word tells 1 more of
22 unanswerable questions and loses 25 of 918 answerable ones (German and Turkish questions whose right page holds
the word in another form: "Formülde", "sıralarım"); the Snowball stem tells none more and loses 2; the conjunctions
change nothing there; the higher cosine for first letters tells 1 more and loses 7 (.84) or 13 (.86).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sentinel.answer.packet import MIN_COSINE
from sentinel.gates.support import content_words
from sentinel.index.fold import fold, stemmed_language
from sentinel.index.fold import forms as all_forms

if TYPE_CHECKING:
    from bench.unanswered import Let, Seen


CONJUNCTIONS = frozenset(
    fold(word)
    for word in (
        *("while", "whilst", "because", "although", "though", "whereas"),  # en
        *("mientras", "porque", "aunque"),  # es
        *("während", "weil", "obwohl", "obgleich"),  # de
        *("iken", "çünkü"),  # tr
    )
)
_CONJUNCTION_FORMS = frozenset(form for word in CONJUNCTIONS for form in all_forms(word))
_CONJUNCTION_STEMS = frozenset(w[:5] for w in CONJUNCTIONS)


def whole_words(text: str, language: str) -> tuple[frozenset[str], frozenset[str]]:
    """The content words of ``text`` folded as ``content_words`` folds them, and each as ``language`` stems it
    (the word itself where the language is not stemmed)."""
    words = frozenset(content_words(text))
    stems = frozenset(fold(w, language) for w in words) if stemmed_language(language) else words
    return words, stems


def _floor(p: Let) -> bool:
    return p.cosine >= MIN_COSINE


def _by_letters(s: Seen, p: Let) -> bool:
    return bool(set(s.words) & p.stems)


def _whole(s: Seen, p: Let) -> bool:
    return _floor(p) and bool(s.asked & p.whole)


def _snowball(s: Seen, p: Let) -> bool:
    return _floor(p) and bool(s.asked & p.whole or s.asked_snowball & p.snowball)


def _whole_or_two(s: Seen, p: Let) -> bool:
    return _floor(p) and bool(s.asked & p.whole or len(set(s.words) & p.stems) >= 2)


def _letters_higher(t: float) -> Callable[[Seen, Let], bool]:
    def rule(s: Seen, p: Let) -> bool:
        if not _by_letters(s, p):
            return False
        return p.cosine >= (MIN_COSINE if s.asked & p.whole else t)

    return rule


def _no_conjunctions(rule: Callable[[Seen, Let], bool]) -> Callable[[Seen, Let], bool]:
    def without(s: Seen, p: Let) -> bool:
        words = {w: c for w, c in s.words.items() if w not in _CONJUNCTION_STEMS}
        asked, snowball = s.asked - CONJUNCTIONS, s.asked_snowball - _CONJUNCTION_FORMS
        return rule(replace(s, words=words, asked=asked, asked_snowball=snowball), p)

    return without


def _shipped_words(s: Seen, p: Let) -> bool:
    return _floor(p) and _by_letters(s, p)


STEM_RULES: dict[str, Callable[[Seen, Let], bool]] = {
    "floor, a word shared whole": _whole,
    "floor, a word whole or by its Snowball stem": _snowball,
    "floor, a word whole or two by first letters": _whole_or_two,
    **{f"floor, first letters only: cosine >= {t:.2f}": _letters_higher(t) for t in (0.84, 0.86)},
    "floor, first letters, no conjunction": _no_conjunctions(_shipped_words),
    "floor, a word shared whole, no conjunction": _no_conjunctions(_whole),
    "floor, a word whole or by its Snowball stem, no conjunction": _no_conjunctions(_snowball),
}


def changed(seen_all: list[Seen], outcome: Callable[[Seen, Callable[[Seen, Let], bool]], bool]) -> None:
    """Each question whose outcome a stem rule changes from the shipped rule's, with the passages it lets in."""
    for name, rule in STEM_RULES.items():
        print(f"\n#### {name}: changed from shipped\n")
        for s in seen_all:
            shipped = outcome(s, lambda _, p: p.shipped)
            if outcome(s, rule) != shipped:
                kind = "answerable LOST" if s.question.pages else "unanswerable TOLD"
                shared = {p.title: sorted(s.asked & p.whole) or sorted(set(s.words) & p.stems) for p in s.passages}
                print(f"- {kind}: {s.question.set} {s.question.text!r} {shared}")
