"""Whether a user turn continues the question before it, and then what is searched: decided by code.

"How long does Sync keep version history?", then "And on the Plus plan?": read alone, the second turn searches
for a plan and finds the file size limits. A turn continues the earlier question when the earlier user turn was
a vault question and this one either opens as a continuation ("and …", "what about …", "und …", "was ist mit …",
"¿y …?", "qué tal …", "peki …", "ya …") or points back at it with a pronoun ("they", "sie", "esos", "bunlar")
while naming at most ``POINTING_WORDS`` content words itself. The rule was written from the four languages'
grammar before it was measured (bench/followups.py, on bench/followups_set.tsv, which chose nothing).

A continuing turn is searched with the earlier question's words joined to its own, and the model is shown both
(the earlier one as such). A turn that asks anew ("Which shortcut opens the Command palette?") is searched alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sentinel.answer.intent import Intent, by_code
from sentinel.gates.support import content_words

POINTING_WORDS = 3
_I = re.IGNORECASE
_OPENS_AS_CONTINUATION = re.compile(
    r"^\W*(?:and|also|but|what\s+about|how\s+about|what\s+if"  # en
    r"|und|aber|auch|was\s+ist\s+mit|wie\s+ist\s+es\s+mit|wie\s+sieht\s+es\s+mit"  # de
    r"|y|pero|también|tambien|qué\s+tal|que\s+tal|qué\s+hay\s+de|que\s+hay\s+de|y\s+si"  # es
    r"|peki|ya|ve|bir\s+de|ayrıca|ama)\b",
    _I,
)
_POINTS_BACK = re.compile(
    r"\b(?:they|them|their|it|its|those|these|that|this"  # en
    r"|sie|ihnen|ihre|diese|dieser|dieses|dort|davon|dafür|dabei|damit"  # de
    r"|ellos|ellas|esos|esas|ese|esa|eso|estos|estas|allí|ahí"  # es
    r"|onlar|bunlar|onu|bunu|onun|bunun|onları|bunları|orada|burada)\b",
    _I,
)


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


def what_is_asked(question: str, turn: str) -> str:
    """The words that say what a turn asks for (a number, how often): a follow-up's own (``turn``) when they ask
    something themselves, else the ``question`` it was joined to ("was kostet die VIP Stufe? und Supporter?" asks
    for an amount: seen in the browser, the follow-up's quote a table row naming Supporter, not the price row)."""
    return turn if turn and _ASKS_OF_ITS_OWN.search(turn) else question


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
    return bool(_POINTS_BACK.search(turn)) and len(content_words(turn)) <= POINTING_WORDS


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
