"""Gate: a sentence giving the number asked for ships only when the sentence of its passage it rests on is about
the question's subject, not about a sibling of it.

Protects the person who asked how long their notes' version history is kept from a true sentence of the right
passage about the thing beside it: seen in the browser (bench/browser_turns.tsv row 10, with 933ef2d), the model's
kept sentence was "Older versions of attachments are stored for two weeks", from the Sync FAQ's answer that also
says "On the Standard plan your notes are retained for 1 month". Every other gate passed it: its passage says it
(``support``), it gives a number (``quantity``). A passage giving durations, limits or prices for several things
is where this happens: each of its sentences gives a number, and only the question's words tell which is asked.

The rule, for a question asking for a number (``quantity.asks_for_a_number``), among the sentences of the cited
passage that give what is asked (the siblings):
- the subject: the question's content words (``support.stems``, naming: "my notes" names what is asked), less
  those of the passage's page title and heading trail (every sentence under "How long do you keep the version
  history?" is about version history, whether it repeats those words or not);
- the model's sentence rests on the siblings sharing the most words with it (stems, numbers whole);
- it is dropped when every sibling it rests on holds fewer subject words than another sibling does. A tie keeps
  it, as does a sentence sharing no word with a sibling, or a passage with one sibling (nothing to compare).
No threshold and no word list per topic: a set relation on folded words, the same in en, de, es, tr. When every
sentence is dropped the answer quotes the passages (``answer.quotes.best_sentences``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sentinel.gates import Verdict, quantity, sorted_items
from sentinel.gates.support import CitedSentence, Evidence, stems
from sentinel.vault.sentences import sentence_spans


def subject_words(question: str, evidence: Evidence) -> frozenset[str]:
    """The question's words (stems) that tell the passage's sentences apart: not its title's or trail's."""
    return stems(question, naming=True) - stems(f"{evidence.title} {evidence.trail}", naming=True)


def siblings(evidence: Evidence, asked: str) -> list[str]:
    """The passage's sentences that give what ``asked`` asks for (``quantity.gives_what_is_asked``)."""
    spans = sentence_spans(evidence.text.strip("…"))
    return [s.text for s in spans if not s.block and quantity.gives_what_is_asked(s.text, asked)]


def off_subject(sentence: CitedSentence, evidence: Evidence | None, question: str, asked: str) -> bool:
    """Whether ``sentence`` rests only on siblings of its passage holding fewer of ``question``'s subject words
    than another sibling does (``asked``: what the turn asks for, a follow-up's own words)."""
    found = siblings(evidence, asked) if evidence is not None else []
    if evidence is None or len(found) < 2:
        return False
    said = stems(sentence.text)
    shared = [len(said & stems(text)) for text in found]
    if not max(shared):
        return False
    subject = subject_words(question, evidence)
    holding = [len(subject & stems(text, naming=True)) for text in found]
    rests_on = [held for held, common in zip(holding, shared, strict=True) if common == max(shared)]
    return max(rests_on) < max(holding)


def about_the_subject(
    sentences: Sequence[CitedSentence], packet: Mapping[int, Evidence], question: str, asked: str
) -> Verdict[CitedSentence]:
    """Keep the sentences not ``off_subject``; passes whole when ``asked`` asks for no number."""
    if not quantity.asks_for_a_number(asked):
        return Verdict(True, kept=list(sentences))
    dropped = [s for s in sentences if off_subject(s, packet.get(s.cite), question, asked)]
    kept = [s for s in sentences if s not in dropped]
    reason = (
        "they give the number of another thing their passage names, not of what the question asks about "
        f"(first: '{dropped[0].text[:60]}')"
        if dropped
        else ""
    )
    return sorted_items(kept, dropped, reason)
