"""Gate: a sentence that copies one sentence of its passage copies it whole, not re-strung around a verb it added.

Protects the person reading a written answer from nonsense with a citation. Seen in the browser (stop 51,
bench/browser_turns_fourth.tsv row 4): from the passage's "Gib unter **E-Mail** deine E-Mail ein." the small
Qwen wrote "Deine E-Mail ist deine E-Mail ein.": every content word is the passage's, so ``gates.support`` kept
it, but the sentence says nothing true. The copy lost the source's verb ("Gib"), added a copula the source does
not have ("ist") and strung the source's words out of their order (its "deine" twice, the source's once).

The rule, on words folded as the lexical leg folds them in the passage's language (``index.fold``: German and
Spanish words their Snowball stem, so "Deine" is "dein"; a word of ``support.STEM`` letters or more meets its
other forms by its first letters, as in ``gates.support``), for each sentence and each sentence of the passage
it cites:
- the sentence is a copy of a source sentence when every word it holds beyond the source's is an auxiliary or
  copula (``AUXILIARIES``: be, have, become, can; en, de, es) and it adds at least one: built of that sentence's
  words and a verb the source did not use;
- such a copy is garbled when the source's words in it do not keep the source's order (they are not a
  subsequence of the source's words, one source word standing for one use);
- a sentence is a copy that echoes the question when every word it holds beyond a source sentence's is an
  auxiliary or a word of the question that no word of the passage is (the question's, never the page's; not an
  auxiliary), it adds at least one such question word, and the source's words in it keep the source's order and
  are at least half the source's (a copied word the question also holds may stand where the question's words
  put it: "the" in "To clear the screen, you can set a Hotkey …"): garbled, since it puts the asker's word into the
  page's sentence. Seen in the
  browser (stop 52, bench/browser_turns_fifth.tsv row 12): the person saved "Noor lends me her glaze samples on
  friday at the pottery studio", asked "who was lending me the glaze samples again?" in a new chat, and read
  "Noor lends me her glaze samples again on friday": their own words with the question's "again" in them. And
  (stop 54, bench/browser_turns_seventh.tsv row 8) "how do i clear the screen" read "To clear the screen, you can
  set a Hotkey for the command Toggle Live Preview/Source mode." from "To toggle between *Live Preview* and
  *Source mode* quickly, you can set a Hotkey …": the page's purpose swapped for the question's, a false claim;
- a sentence adding no word but auxiliaries to a German source that opens with its verb and ends with that verb's
  separable particle ("Füge … ein", "Lade … herunter") is garbled when it ends with the particle and lacks the
  verb: "Deine persönliche Sub-URL nicht in diesen Wert ein." for "Füge deine persönliche Sub-URL nicht in diesen
  Wert ein." (bench/answers_set.tsv de06): a lost verb, which the other words cannot show.
Each sentence of a model's item is read on its own (an item may hold two). A garbled copy is not shown: the
source sentence itself stands in its place, as the page spells it (links as
their label, a list's marker and a callout's marker left off), cited the same, and checked by the gates after
this one like any sentence: what the person reads is the passage's sentence, never silence where it had one.
An honest restatement keeps its own verb ("Unter E-Mail gibst du deine E-Mail ein.") or the source's order
("Obsidian Sync is a paid add-on" from "Obsidian Sync, a paid add-on, …") and is kept as written.
Chosen on the drafts of bench/answers_set.tsv and bench/followups_set.tsv captured once (bench/drafts.py;
docs/answers.md, "The garbled copy"); the question clause on the browser files' recalls (bench/recalls.py) and
answers_set's drafts (docs/answers.md, "Stop 53, h53b").
"""

from __future__ import annotations

import re

from sentinel.gates import Verdict, definition, sorted_items
from sentinel.gates.support import STEM, CitedSentence, Evidence
from sentinel.index.fold import fold
from sentinel.vault.links import shown_links, text_without_link_markup
from sentinel.vault.sentences import as_read, sentence_spans

_WORD = re.compile(r"[^\W_]+")
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
# The verbs a copy adds to strings of its source's words without saying anything the source does (folded).
_AUXILIARIES = {
    "en": "is are was were be been being am has have had will would can could does did",
    "de": "ist sind war waren sein bin bist seid wird werden wurde wurden hat haben hatte hatten kann können",
    "es": "es son era eran fue fueron ser está están estar ha han hay puede pueden",
}
AUXILIARIES = frozenset(fold(word, lang) for lang, words in _AUXILIARIES.items() for word in words.split())
# The separable particles a German imperative step ends with, its verb first ("Gib … ein"), folded.
_PARTICLES = "ab an auf aus ein fest her herunter hin hoch mit nach vor weg zu zurück"
PARTICLES = frozenset(fold(word, "de") for word in _PARTICLES.split())


def _words(text: str, language: str) -> list[str]:
    return [fold(word, language) for word in _WORD.findall(text_without_link_markup(text))]


def _same(word: str, other: str) -> bool:
    return word == other or (len(word) >= STEM and len(other) >= STEM and word[:STEM] == other[:STEM])


def _in_order(words: list[str], source: list[str]) -> bool:
    """Whether ``words`` are a subsequence of ``source`` (each source word used once; greedy is exact)."""
    at = 0
    for word in words:
        while at < len(source) and not _same(word, source[at]):
            at += 1
        if at == len(source):
            return False
        at += 1
    return True


def garbled_source(sentence: str, passage: str, question: str = "") -> str:
    """The sentence of ``passage`` that ``sentence`` is a garbled copy of (see the module docstring), verbatim;
    "" when it is none's. ``question``: what the person asked (a follow-up's words with it), whose words a copy
    may not add."""
    language = definition.language_of(passage)
    words, asked = _words(sentence, language), _words(question, language)
    echoed = _echoed(words, asked, _words(passage, language))
    for span in sentence_spans(passage):
        if span.block:
            continue
        source = _words(as_shown(span.text), language)
        added = [w for w in words if not any(_same(w, s) for s in source)]
        if not words or not source or not all(w in AUXILIARIES or w in echoed for w in added):
            continue
        copied = [w for w in words if w not in added]
        ordered = [w for w in copied if w not in asked]  # a word the question holds may come with its words
        if any(w in echoed for w in added) and _in_order(ordered, source) and len(copied) * 2 >= len(source):
            return span.text
        if not all(w in AUXILIARIES for w in added):
            continue
        if added and not _in_order(copied, source):
            return span.text
        if source[-1] in PARTICLES and words[-1] == source[-1] and not any(_same(source[0], w) for w in words):
            return span.text
    return ""


def _echoed(words: list[str], asked: list[str], passage: list[str]) -> set[str]:
    """The words of ``words`` the question holds and the passage does not: the question's, not the page's (an
    auxiliary is left to the copula clause, which keeps one added in the source's order)."""
    return {w for w in words if w in asked and w not in AUXILIARIES and not any(_same(w, p) for p in passage)}


def as_shown(source: str) -> str:
    """A passage's sentence as a written answer shows it: as a reader of the page reads it, one line."""
    return _LIST_MARKER.sub("", as_read(" ".join(shown_links(source).split())))


def restored(text: str, passage: str, question: str = "") -> str:
    """``text`` with each of its sentences that is a garbled copy of a sentence of ``passage`` replaced by that
    sentence ``as_shown`` (a model's item may hold two sentences: each is read on its own); ``text`` unchanged
    when none is."""
    pieces, at = [], 0
    for span in sentence_spans(text):
        if source := garbled_source(span.text, passage, question):
            pieces += [text[at : span.start], as_shown(source)]
            at = span.end
    return "".join([*pieces, text[at:]]) if pieces else text


def whole_copies(
    sentences: list[CitedSentence], packet: dict[int, Evidence], question: str = ""
) -> Verdict[CitedSentence]:
    """The sentences, each garbled copy in them replaced by its source sentence (``kept``, in the order given);
    the sentences holding a garbled copy are ``dropped`` as the model wrote them. ``question``: the question and
    a follow-up's own words, joined."""
    kept, dropped, reasons = [], [], []
    for sentence in sentences:
        evidence = packet.get(sentence.cite)
        text = restored(sentence.text, evidence.text, question) if evidence is not None else sentence.text
        if text != sentence.text:
            dropped.append(sentence)
            reasons.append(f"'{sentence.text[:60]}' re-strings passage {sentence.cite}'s words: shown as '{text[:60]}'")
            kept.append(CitedSentence(text, sentence.cite))
        else:
            kept.append(sentence)
    return sorted_items(kept, dropped, "; ".join(reasons))
