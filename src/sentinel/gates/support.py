"""Gate: a sentence of an answer ships only when the passage it cites supports it.

Protects the person reading an answer from what the model added: a number the vault never gave, a claim taken
from the model's own knowledge, a sentence pinned on the wrong page. The model writes sentences over a numbered
evidence packet and names, for each, the passage it took it from; this gate checks each sentence against that
passage alone, in code, and drops what fails. A model that cites at random, or writes from memory, gets its
sentences dropped, and the person gets the extractive answer (the passages themselves) instead.

The rule, on the text fold the lexical leg uses (``index.fold``), both sides:
- every number in the sentence must occur in the cited passage (a number is never approximately right);
- of the sentence's content words (function words of en, de, es, tr dropped), at least a language's share must
  occur in the passage (the passage's page title and heading trail count: they are where it says what it is),
  and at least one of them must be a word the passage's body holds beyond its title and trail: seen in Open
  WebUI, the model wrote a heading trail ("Map view > Example") as a sentence, which says nothing the passage does.
  A word occurs when the passage has it, or a word with the same first letters (``STEM`` of them; plurals,
  cases, conjugations: "transcripts" / "transcript", "klasörü" / "klasör", "Ordners" / "Ordner");
- a sentence naming something the question names (a capitalised word past its first) that its passage lacks is
  dropped, however many of its other words the passage has: the model put the question's subject into a
  sentence about something else (a restated question's other words stay allowed: "Die Datei, die beim
  Herunterladen … gespeichert wird, ist …" is an honest answer). Seen in stop 47:
  "Los archivos de Bases usan una sintaxis Markdown ligeramente diferente", the passage saying "Algunas
  aplicaciones usan …"; asked about Bases);
- a sentence with no content word says nothing checkable and is dropped; so is one whose content words are all
  the question's (a model echoing "Und unter macOS?" back, seen in Open WebUI: it says nothing the question did
  not, though its passage has the words);
- for a follow-up ("Peki ne sıklıkla kaydedilir?" after "… kaç gün saklar?"), a sentence holding none of the
  follow-up's own content words answers the earlier question, not this one, and is dropped (seen in Open WebUI:
  "… 7 gün boyunca saklanır" for how often snapshots are taken, the passage holding both facts).
The shares (``SHARES``) were chosen on the support cases in tests/tools/test_answer_support.py (paraphrases the
small model writes over the eval vault's pages, and the liars); bench/answers.py reports on its own question
set, never used to choose them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sentinel.gates import Verdict, definition, sorted_items
from sentinel.index.fold import fold
from sentinel.vault.links import text_without_link_markup

# Words that carry no claim of their own: articles, pronouns, auxiliaries, prepositions, conjunctions, and the
# phrases models open answers with; "often" and "oft", which ask how often ("und wie oft?") and name no subject (seen
# in Open WebUI: "oft" led a follow-up's packet to "… wird oft mit einem Computer-Backup kombiniert"); the question
# words and "peki", which ask and name nothing (seen in Open WebUI: "peki bitirdiklerim icin hangisi?" led its
# packet to a page saying "hangi içeriğin eklendiğini", bench/browser_turns_eighth.tsv row 2). A content word is
# any other word of 3+ letters, or any number.
_FUNCTION_WORDS = {
    "en": "a an the this that these those it its is are was were be been being am do does did done have has had "
    "having will would shall should can could may might must of to in on at by for from with without about into "
    "onto over under than then there here what which who whom whose when where why how and or but nor not no yes "
    "so if as also too very just only more most much many some any all each every both either neither other such "
    "you your yours me my mine we us our ours they them their theirs he him his she her hers one ones according "
    "says said say states stated mentions mentioned described describes often",
    "de": "der die das den dem des ein eine einen einem einer eines und oder aber nicht kein keine ist sind war "
    "waren sein seine ihr ihre es sie er wir ich du mit von zu zum zur bei aus auf für fur über uber unter nach "
    "vor als wie wenn dass auch nur noch schon sehr mehr wird werden wurde kann können konnen muss hat haben im oft "
    "welche welcher welches welchen welchem wer wen wem wo wann warum wieso weshalb",
    "es": "el la los las lo un una unos unas y o pero no ni es son era fue ser está esta están estan de del al en "
    "con por para sin sobre entre que qué quien cual cuál como cómo cuando donde se su sus mi mis tu tus le les "
    "nos muy más mas también tambien solo sólo ya hay puede pueden este esto estos estas ese esa eso "
    "cuáles cuales quién quiénes quienes dónde cuándo",
    "tr": "bir ve veya ile için icin bu şu su o da de mi mı mu mü ne nasıl nasil çok cok daha en gibi her ama "
    "fakat olarak olan var yok ise hem kadar sonra önce once göre gore diye ki peki "
    "hangi hangisi hangisini hangisinde hangileri nerede nereye neden niye kim kimin",
}
# The nouns a model names its source with ("the note says", "this page"): no claim in its sentence, but in a
# person's question they may name the subject ("… the version history of my notes?", ``gates.subject``).
SOURCE_NOUNS = frozenset({"page", "vault", "note", "notes", "passage"})
FUNCTION_WORDS = frozenset(word for words in _FUNCTION_WORDS.values() for word in words.split()) | SOURCE_NOUNS
STEM = 5  # letters two forms of one word share at least (Turkish suffixes, German and Spanish endings)
SHARES = {"en": 0.75, "de": 0.7, "es": 0.7, "tr": 0.6, "": 0.7}  # of content words found in the passage
_WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"\d")
_ANNOUNCES = re.compile(r":[*_\s]*$")  # a colon at the end, bold or italic closing after it


@dataclass(frozen=True)
class CitedSentence:
    """One sentence the model wrote, and the packet number it says it came from (0: none given)."""

    text: str
    cite: int


@dataclass(frozen=True)
class Evidence:
    """What a packet number stands for: the passage verbatim, with the page title and heading trail."""

    number: int
    text: str
    title: str = ""
    trail: str = ""


def content_words(text: str, naming: bool = False) -> list[str]:
    """The words of ``text`` that carry a claim, folded: numbers, and words of 3+ letters that are not function
    words; ``naming``: the ``SOURCE_NOUNS`` count too (what a question or a passage names, not a model's "the
    note says")."""
    excluded = FUNCTION_WORDS - SOURCE_NOUNS if naming else FUNCTION_WORDS
    words = [fold(word) for word in _WORD.findall(text)]
    return [w for w in words if _NUMBER.search(w) or (len(w) >= 3 and w not in excluded)]


def stems(text: str, naming: bool = False) -> frozenset[str]:
    """The content words of ``text`` as a page shows it (links as their label), each cut to its first ``STEM``
    letters; a number whole ("12" is not "1"). ``naming`` as for ``content_words``."""
    words = content_words(text_without_link_markup(text), naming)
    return frozenset(w if any(c.isdigit() for c in w) else w[:STEM] for w in words)


def _found(word: str, vocabulary: set[str], stems: set[str]) -> bool:
    if word in vocabulary:
        return True
    return len(word) >= STEM and not _NUMBER.search(word) and word[:STEM] in stems


def _holds_any(words: list[str], of: str) -> bool:
    """Whether ``words`` hold a content word of ``of`` (same first letters); True when ``of`` has none."""
    others = set(content_words(of))
    stems = {w[:STEM] for w in others if len(w) >= STEM}
    return not others or any(_found(w, others, stems) for w in words)


def support_problem(sentence: CitedSentence, evidence: Evidence | None, question: str = "", turn: str = "") -> str:
    """Why ``evidence`` does not support ``sentence`` as an answer to ``question`` ("" when it does); ``turn``:
    a follow-up's own words, when ``question`` joins them to the earlier question's."""
    if evidence is None:
        return f"cites passage {sentence.cite}, which the packet does not have"
    words = content_words(sentence.text)
    if not words:
        return "says nothing that can be checked against a passage"
    if _ANNOUNCES.search(sentence.text):
        return "ends in a colon: it announces what follows and says none of it"
    asked = set(content_words(question))
    if asked and all(_found(w, asked, {a[:STEM] for a in asked if len(a) >= STEM}) for w in words):
        return "repeats the question's words and nothing else"
    if turn and not _holds_any(words, turn):
        return "holds none of the follow-up's own words: it answers the earlier question"
    named = set(content_words(f"{evidence.title} {evidence.trail}"))
    body = set(content_words(evidence.text)) - named
    if not any(_found(w, body, {b[:STEM] for b in body if len(b) >= STEM}) for w in words if w not in named):
        return f"says only what passage {evidence.number}'s title or heading trail names, nothing its body says"
    vocabulary = named | set(content_words(evidence.text))
    stems = {w[:STEM] for w in vocabulary if len(w) >= STEM}
    numbers = [w for w in words if _NUMBER.search(w)]
    if missing := [n for n in numbers if n not in vocabulary]:
        return f"gives {', '.join(missing)}, which passage {evidence.number} does not"
    asked_stems = {a[:STEM] for a in asked if len(a) >= STEM}
    names = content_words(" ".join(w for w in _WORD.findall(sentence.text)[1:] if w[0].isupper()))
    if grafted := [w for w in names if not _found(w, vocabulary, stems) and _found(w, asked, asked_stems)]:
        return f"puts the question's {', '.join(grafted)} where passage {evidence.number} has no such word"
    found = sum(_found(w, vocabulary, stems) for w in words)
    share = SHARES.get(definition.language_of(sentence.text), SHARES[""])
    if found < share * len(words):
        return f"{found} of its {len(words)} content words are in passage {evidence.number} (needs {share:.0%})"
    return ""


def supported_sentences(
    sentences: list[CitedSentence], packet: dict[int, Evidence], question: str = "", turn: str = ""
) -> Verdict[CitedSentence]:
    """Keep the sentences their cited passage supports; drop the rest (``reason`` says why for the first)."""
    kept, dropped, reasons = [], [], []
    for sentence in sentences:
        problem = support_problem(sentence, packet.get(sentence.cite), question, turn)
        if problem:
            dropped.append(sentence)
            reasons.append(f"'{sentence.text[:60]}' {problem}")
        else:
            kept.append(sentence)
    return sorted_items(kept, dropped, "; ".join(reasons))
