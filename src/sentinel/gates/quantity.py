"""Gate: a question asking for a quantity, a duration or a date is answered only by a sentence that gives one.

Protects the person who asked "how many days?" from an answer that is true, supported by its passage, and says
no number: seen in Open WebUI three stops running (docs/answers.md), "Dosya Kurtarma anlık görüntüleri kaç gün
saklar?" answered "Dosya Kurtarma eksiksiz bir yedekleme çözümü değildir …", a sentence of the passage next to
"7 gün". The support gate checks that a sentence is in its passage, not that it answers; this gate checks the
one kind of answering code can see: the question asks for a number (its own words, in en, de, es, tr, written
from the four languages' grammar, never fitted to a benchmark set) and no kept sentence holds one (a digit, or
a number word from two up: "bir", "ein", "un", "one" are articles too; "on", "bin", "once" are English words).
Then every sentence is dropped, and the extractive answer quotes the passages' sentences that hold a number
first (``answer.quotes.best_sentences``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sentinel.gates import Verdict
from sentinel.gates.support import CitedSentence
from sentinel.vault.links import text_without_link_markup

_I = re.IGNORECASE
_ASKS_FOR_A_NUMBER = re.compile(
    r"\b(?:how\s+(?:many|much|long|old|big|large)|(?:what|which)\s+(?:year|date)|when\s+(?:was|were|did)"  # en
    r"|wie\s+(?:viele?|lange|alt|groß|gross)|in\s+welchem\s+jahr|an\s+welchem\s+tag|wann\s+(?:wurde|war|kam)"
    r"|welche[rnms]?\s+frist|innerhalb\s+welche[rnms]?"  # de
    r"|cuánt[oa]s?|en\s+qu[eé]\s+(?:año|fecha)|qu[eé]\s+fecha|cu[aá]ndo\s+(?:fue|se\s+lanz)"  # es
    r"|kaç|ne\s+kadar|hangi\s+(?:yıl|tarih)|ne\s+zaman\s+(?:çıktı|yayınlandı)"  # tr
    # a price is an amount: "what does … cost", "was kostet …", "¿qué precio …?", "fiyatı ne?"
    r"|what\s+(?:does|do|did|will)\b[^?]{0,60}?\bcost\b(?=\s*(?:\?|$|per\b|a\b|in\b|each\b|for\b))|what\s+(?:is|are)\s+the\s+(?:price|cost)"
    r"|was\s+(?:kostet|kosten|kostete)\b|wie\s+teuer|welche[rnms]?\s+preis"
    r"|qu[eé]\s+precio|cu[aá]l\s+es\s+el\s+(?:precio|coste|costo)|fiyat\w*\s+ne)",
    _I,
)
_NUMBER_WORDS = (
    "two three four five six seven eight nine ten eleven twelve twice hundred thousand "
    "zwei drei vier fünf sechs sieben acht neun zehn elf zwölf zweimal hundert tausend "
    "dos tres cuatro cinco seis siete ocho nueve diez doce cien mil "
    "iki üç dört beş altı yedi sekiz dokuz yüz"
)
_GIVES_A_NUMBER = re.compile(rf"\d|\b(?:{'|'.join(_NUMBER_WORDS.split())})\b", _I)


# How often: a number ("alle 5 Minuten") or an adverb saying how often ("täglich", "always") answers it.
_ASKS_HOW_OFTEN = re.compile(
    r"\b(?:how\s+often|wie\s+(?:oft|häufig)|con\s+qu[eé]\s+frecuencia|cada\s+cu[aá]nto|ne\s+sıklıkla)", _I
)
_FREQUENCY_WORDS = (  # adverbs only: "every", "jedem", "cada", "her" also say "on every device" (seen in the browser)
    "daily weekly monthly hourly always "
    "täglich wöchentlich monatlich stündlich immer "
    "diario diaria diariamente semanal mensual siempre "
    "daima sürekli günlük haftalık aylık saatlik"
)
_GIVES_A_FREQUENCY = re.compile(rf"\b(?:{'|'.join(_FREQUENCY_WORDS.split())})\b", _I)


def asks_for_a_number(question: str) -> bool:
    """Whether the question's own words ask for a quantity, a duration, a date or how often."""
    return bool(_ASKS_FOR_A_NUMBER.search(question) or _ASKS_HOW_OFTEN.search(question))


# A version names a release, never a quantity ("Version `1.4.16`", "introduced in Obsidian version 1.7"): seen in
# a "within which deadline?" answer that quoted a setup page's version beside the refund page's FAQ.
_VERSION = re.compile(
    r"`v?\d+(?:\.\d+)+`|\bv?\d+(?:\.\d+){2,}\b|\b(?:version|versión|sürüm\w*)\s+`?v?\d+(?:\.\d+)*`?", _I
)


# An ordered list's marker gives a step's place, never a quantity ("1. Open **Settings**."): seen in a packet for
# "How long does Obsidian Sync keep the version history?", a page's numbered steps taken for its numbers.
_LIST_MARKER = re.compile(r"^[ \t>]*\d+[.)][ \t]", re.MULTILINE)


# A link's address is not read as the sentence's words: seen in the browser (stop 49, row 10), "Obsidian can be used
# in [Lockdown Mode](https://support.apple.com/en-us/105120) as long as …" was quoted first for how long version
# history is kept, its URL's "105120" taken for the number asked for.
_ADDRESS = re.compile(r"\]\([^()\s]*\)|\b[a-z][a-z0-9+.-]*://[^\s<>()\[\]]+", _I)


# What a page shows as a name, never as a quantity: an embedded file or image (drawn, not read: "![[Engelbart.jpg|200]]"
# gives a width), a code span, a file's name and an icon's ("lucide-trash-2"). Seen in the browser (stop 49, row 2):
# "Wie groß darf eine einzelne Datei bei Sync Standard sein?" was answered from a list of Sync's status icons, the
# "2" of "![[lucide-trash-2.svg#icon]]" taken for the size asked for.
_EMBED = re.compile(r"!\[\[[^\[\]\n]*\]\]|!\[[^\[\]\n]*\]\([^()\s]*\)")
_CODE_SPAN = re.compile(r"`+[^`\n]*`+")
_FILE_OR_ICON = re.compile(r"[\w.-]*[^\W_]\.[a-z][a-z0-9]{1,4}\b|\blucide-[\w-]+", _I)


def gives_a_number(text: str) -> bool:
    """Whether ``text`` holds a number: a digit, or a number word from two up, in the words a reader reads; a
    version, an ordered list's marker, a link's address (a markdown link's target, a bare URL), an embedded file,
    a code span, a file's or an icon's name is not one."""
    shown = text_without_link_markup(_EMBED.sub(" ", _CODE_SPAN.sub(" ", text)))
    shown = _FILE_OR_ICON.sub(" ", _ADDRESS.sub(" ", _VERSION.sub(" ", shown)))
    return bool(_GIVES_A_NUMBER.search(_LIST_MARKER.sub(" ", shown)))


def gives_what_is_asked(text: str, question: str) -> bool:
    """Whether ``text`` gives what ``question`` asks for: a number (``gives_a_number``), or for how often also an
    adverb saying how often ("daily", "täglich", "siempre", "günlük")."""
    if _ASKS_HOW_OFTEN.search(question) and _GIVES_A_FREQUENCY.search(text):
        return True
    return gives_a_number(text)


def answers_the_number(sentences: Sequence[CitedSentence], question: str) -> Verdict[CitedSentence]:
    """Passes when the question asks for no number, or a sentence gives one; else every sentence is dropped."""
    if not asks_for_a_number(question) or any(gives_what_is_asked(s.text, question) for s in sentences):
        return Verdict(True, kept=list(sentences))
    return Verdict(
        False,
        "the question asks for a number (how many, how long, how often, which date) and no sentence gives one",
        dropped=list(sentences),
    )
