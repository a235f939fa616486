"""Whether a user turn continues the question before it, and then what is searched: decided by code.

"How long does Sync keep version history?", then "And on the Plus plan?": read alone, the second turn searches
for a plan and finds the file size limits. A turn continues the earlier question when the earlier user turn was
a vault question and this one either opens as a continuation ("and …", "what about …", "und …", "was ist mit …",
"¿y …?", "qué tal …", "peki …", "ya …") or points back at it with a pronoun ("they", "sie", "esos", "bunlar")
while naming at most ``POINTING_WORDS`` content words itself. The rule was written from the four languages'
grammar before it was measured (bench/followups.py, on bench/followups_set.tsv, which chose nothing). A
demonstrative and the noun it determines ("do those logs survive closing the app?", "uygulamayı kapatınca o
kayıtlar duruyo mu?") point back too, and name the earlier thing, not one of the turn's own: neither counts
against ``POINTING_WORDS`` (stop 52; chosen on the set, rows added for the shape: docs/answers.md).

A continuing turn is searched with the earlier question's words joined to its own, and the model is shown both
(the earlier one as such). A turn that asks anew ("Which shortcut opens the Command palette?") is searched alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sentinel.answer.intent import Intent, by_code
from sentinel.gates.support import FUNCTION_WORDS, content_words
from sentinel.vault.language import question_language

POINTING_WORDS = 3
_I = re.IGNORECASE
# How a continuation opens, in en, de, es, tr: a conjunction, or words asking about another thing ("what about …"),
# neither of which asks anything itself; or a clause of its own ("what if …", "¿y si …?").
_JOINS = (
    r"and|also|but|und|aber|auch|y|pero|también|tambien|peki|ya|ve|bir\s+de|ayrıca|ama"
    r"|what\s+about|how\s+about|was\s+ist\s+mit|wie\s+ist\s+es\s+mit|wie\s+sieht\s+es\s+mit"
    r"|qué\s+tal|que\s+tal|qué\s+hay\s+de|que\s+hay\s+de"
)
_OPENS_AS_CONTINUATION = re.compile(rf"^\W*(?:what\s+if|y\s+si|{_JOINS})\b", _I)
_JOINING_WORDS = re.compile(rf"^\W*(?:{_JOINS})\b", _I)
_POINTS_BACK = re.compile(
    r"\b(?:they|them|their|it|its|those|these|this"  # en ("that": ``_points_back``)
    r"|sie|ihnen|ihre|diese|dieser|dieses|dort|davon|dafür|dabei|damit"  # de
    r"|ellos|ellas|esos|esas|ese|esa|eso|estos|estas|allí|ahí"  # es
    r"|onlar|bunlar|onu|bunu|onun|bunun|onları|bunları|orada|burada)\b",
    _I,
)
# A demonstrative determiner that points back at what was said (anaphoric), from each language's grammar: English
# "those", and "that" where no content word stands before it ("a plugin that counts words" is a relative clause);
# German "diese…/jene…" before a noun (a capital: "diese Logs"; "die Logs" is an article as often); Spanish
# "ese/esa/esos/esas"; Turkish "o", only in a Turkish turn (Spanish "o" is "or"). Not the proximal ones ("this",
# "these", "estos", "bu", "şu"), which also point at what a person has in front of them ("How do I pin this
# command …?", "Bu notu … nasıl taşırım?" ask anew): chosen on bench/followups_set.tsv (docs/answers.md).
_DETERMINERS = re.compile(r"those|that|diese[mnrs]?|jene[mnrs]?|ese|esa|esos|esas", _I)
_TURKISH_DETERMINERS = re.compile(r"o", _I)
_TURN_WORD = re.compile(r"[^\W_]+")


def _relative(before: re.Match[str] | None, after: re.Match[str] | None) -> bool:
    """Whether English "that" opens a relative or a content clause ("a plugin that counts words"), pointing at
    nothing: a content word stands before it and a word after it."""
    return before is not None and after is not None and bool(content_words(before.group()))


def _triples(turn: str) -> list[tuple[re.Match[str] | None, re.Match[str], re.Match[str] | None]]:
    """Each word of ``turn`` with the word before and the word after it (None at either end)."""
    words = list(_TURN_WORD.finditer(turn))
    if not words:
        return []
    return list(zip([None, *words[:-1]], words, [*words[1:], None], strict=True))


def _points_back(turn: str) -> bool:
    """Whether ``turn`` holds a pronoun pointing back (``_POINTS_BACK``, or "that" opening no clause)."""
    if _POINTS_BACK.search(turn):
        return True
    return any(w.group().casefold() == "that" and not _relative(b, a) for b, w, a in _triples(turn))


def pointed_at(turn: str) -> list[str]:
    """The words of ``turn`` that point back at the earlier question's thing: each demonstrative determiner and
    the noun it determines (the word right after it, a content word), folded as ``content_words`` folds them;
    [] when it holds none."""
    turkish = question_language(turn) == "tr"
    pointed: list[str] = []
    for before, word, noun in _triples(turn):
        text = word.group()
        if noun is None or turn[word.end() : noun.start()].strip():
            continue
        if not (_DETERMINERS.fullmatch(text) or (turkish and _TURKISH_DETERMINERS.fullmatch(text))):
            continue
        if text.casefold() == "that" and _relative(before, noun):
            continue
        if text.casefold().startswith(("dies", "jen")) and not noun.group()[0].isupper():
            continue
        if named := content_words(noun.group()):
            pointed += [*content_words(text), *named]
    return pointed


# A question word or a yes-no particle (en, de, es, tr, from the four languages' grammar): a follow-up holding one
# asks something of its own ("Peki ne sıklıkla kaydedilir?"); one without names only what the earlier question is
# asked of now ("und Supporter?", "And on Sync Standard?").
_ASKS_OF_ITS_OWN = re.compile(
    r"\b(?:what|which|who|whom|whose|where|when|why|how"  # en
    r"|was|welche[rnms]?|wer|wen|wem|wessen|wo|wohin|woher|wann|warum|weshalb|wieso|wie|wozu"  # de
    r"|qué|cuál|cuáles|quién|quiénes|dónde|cuándo|cómo|cuánt[oa]s?"  # es
    r"|ne|neden|niye|niçin|nasıl|nerede|nereye|nereden|hangi|kim|kaç|m[ıiuü](?:s[ıiuü]n(?:[ıiuü]z)?|y[ıiuü][mz])?)\b",
    _I,
)


# A predicate of a follow-up's own, from each language's grammar: a yes-no question's finite verb, which English
# writes as an auxiliary, a copula or a modal ("And is it encrypted?"), German and Spanish as any verb put first
# ("und ist das verschlüsselt?", "und läuft das offline?", "¿y se cifra?": a reflexive pronoun stands only before a
# verb); a clause of its own ("and if I cancel?"). Turkish asks yes or no with "mi", read as a question word above.
_FINITE_VERB = re.compile(
    r"\b(?:(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|shall|should|might|must)(?:n['’]t)?"
    r"|can['’]t|cannot|won['’]t|if"  # en
    r"|ist|sind|war|waren|wäre|wird|werden|wurde|wurden|kann|kannst|können|darf|dürfen|muss|müssen|soll|sollen"
    r"|sollte|hat|haben|hast|gibt|geht|wenn|falls"  # de
    r"|es|son|era|fue|está|están|estaba|hay|puede|pueden|puedo|tiene|tienen|se|le|les|si"  # es
    r"|eğer)\b",  # tr
    _I,
)
# The words a German or Spanish fragment opens with before what it names ("und bei Plus?", "¿y en el móvil?"), not
# among the function words already (``support.FUNCTION_WORDS``): prepositions, determiners, a few adverbs.
_FRAGMENT_OPENERS = (
    "am an ans beim vom vorm ins um ohne gegen durch bis seit während wegen neben jede jeder jedes jedem jeden alle "
    "allen mein meine meinem meinen meiner dein deine unser unsere unserem unseren dann denn jetzt eigentlich "
    "a ante bajo desde hacia hasta según tras durante otro otra otros otras cada todo toda todos todas nuestro "
    "nuestra ahora entonces así aquí"
)
_OPENS_A_FRAGMENT = frozenset(_FRAGMENT_OPENERS.split())
_FIRST_WORD = re.compile(r"[^\W\d_]+")


def asks_of_its_own(turn: str) -> bool:
    """Whether a follow-up asks something of its own: past the words it opens with ("and", "what about", "peki"),
    it holds a question word or a yes-no particle, or names a predicate (``_FINITE_VERB``; in German and Spanish
    any lowercase word but a function word put first: German writes its nouns with a capital, and neither language
    opens a fragment naming a thing with a verb). "und Supporter?", "And on Sync Standard?", "¿Y el nivel
    Patron?" name only what the earlier question is asked of now."""
    rest = turn
    while opening := _JOINING_WORDS.match(rest):
        rest = rest[opening.end() :]
    if _ASKS_OF_ITS_OWN.search(rest) or _FINITE_VERB.search(rest):
        return True
    first = _FIRST_WORD.search(rest)
    if first is None or question_language(turn) not in ("de", "es"):
        return False
    word = first.group()
    return word.islower() and word not in FUNCTION_WORDS and word not in _OPENS_A_FRAGMENT


def what_is_asked(question: str, turn: str) -> str:
    """The words that say what a turn asks for (a number, how often): a follow-up's own (``turn``) when it asks
    something itself (``asks_of_its_own``), else the ``question`` it was joined to ("was kostet die VIP Stufe?
    und Supporter?" asks for an amount: seen in the browser, the follow-up's quote a table row naming Supporter,
    not the price row). "How much does Sync cost? And is it encrypted?" asks yes or no, no amount: read as the
    question's, a right "Yes, …" was dropped for giving no number."""
    return turn if turn and asks_of_its_own(turn) else question


@dataclass(frozen=True)
class Asked:
    """A vault question as the pipeline reads it: the turn, and the earlier question it continues ("" if none)."""

    turn: str
    earlier: str = ""

    @property
    def searched(self) -> str:
        """What the ladder searches for: the earlier question's words with this turn's."""
        return f"{self.earlier} {self.turn}" if self.earlier else self.turn


def continues(turn: str) -> bool:
    """Whether the words read as a continuation of an earlier question (whether there is one is not asked)."""
    if _OPENS_AS_CONTINUATION.search(turn):
        return True
    pointed = pointed_at(turn)
    if not pointed and not _points_back(turn):
        return False
    own = content_words(turn)
    for word in pointed:  # a demonstrative and its noun name the earlier thing, not one of the turn's own
        own.remove(word)
    return len(own) <= POINTING_WORDS


def asked(user_turns: list[str]) -> Asked:
    """The last of ``user_turns`` as a vault question: joined to the question it continues, the chain followed
    back (a follow-up of a follow-up continues the same question)."""
    current = Asked("")
    for turn in user_turns:
        joined = current.searched
        if joined and continues(turn) and by_code(current.turn).intent is Intent.VAULT:
            current = Asked(turn, joined)
        else:
            current = Asked(turn)
    return current
