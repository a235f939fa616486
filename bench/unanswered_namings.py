"""The ways ``bench/unanswered.py`` ranks of finding a thing the question names that no chunk holds: each is a set
of ``unnamed.unnamed``'s settings, named as its tables print it."""

from __future__ import annotations

import re
from typing import Any

from sentinel.answer.unheld import AUTO, spared
from sentinel.answer.unnamed import (
    ACCOMPANIED,
    OBJECT,
    OWNED,
    OWNED_PLACE,
    OWNED_PLACE_WIDE,
    PLACED,
    POSSESSED,
    WITH_OBJECT,
)

# ``unnamed.unnamed``'s settings. Round two (h50d, committed before it was ranked; round one's three, a capital or
# a two-word name in every language with no limit on the second word, each lost 5-18 points of the answerable
# choosing questions, German's nouns and short chunks: docs/answers.md): (vault share, at most chunks) of the
# two-word name, share None for a capitalised word alone; none in a German question. Rounds three and four (h51e,
# each committed before it was ranked): the capitalised word, and a hyphenated compound whose first part no chunk
# holds, or the name in a device's position that no chunk holds whole (``unnamed.OWNED``: "on my", "auf meiner",
# "en mi"; ``PLACED``: also "on a", "to the", "auf einer", "en un", …); round four's name ends its clause. Round five
# (stop 52, committed before it was ranked), beside the shipped placed name: a German possessive alone
# (``unnamed.POSSESSED``: "meine Steuererklärung"); Turkish, a name before an apostrophe's suffix ("Kindle'ıma") or a
# noun in a device's place ("akıllı saatimde") no chunk holds a word beginning with (``unnamed._turkish``). Round
# six (committed before it was ranked): the Turkish name alone, and with round six's narrower place
# (``unnamed.OWNED_PLACE``: the possessive's vowel, a locative or ablative). Stop 53 (h53e, committed before it was
# ranked): the shipped naming and a bare "with" (``unnamed.ACCOMPANIED``: "con spotify"), the name ending its clause
# or not.
NAMINGS: dict[str, dict[str, Any]] = {
    "capitalised word, not German": {},
    "name .8, second word in <= 3 chunks, not German": {"share": 0.8, "rare": 3},
    "capitalised + hyphen": {"hyphen": True},
    "capitalised + owned": {"position": OWNED},
    "capitalised + placed": {"position": PLACED},
    "capitalised + placed + German possessive": {"position": POSSESSED},
    "capitalised + placed + Turkish": {"position": PLACED, "turkish": True, "places": OWNED_PLACE_WIDE},
    "capitalised + placed + German possessive + Turkish": {
        "position": POSSESSED,
        "turkish": True,
        "places": OWNED_PLACE_WIDE,
    },
    "capitalised + placed + Turkish name": {"position": PLACED, "turkish": True},
    "capitalised + placed + Turkish name, narrow place": {"position": PLACED, "turkish": True, "places": OWNED_PLACE},
    "capitalised + placed + German possessive + Turkish name, narrow place": {
        "position": POSSESSED,
        "turkish": True,
        "places": OWNED_PLACE,
    },
    "… narrow place + with": {
        "position": POSSESSED,
        "turkish": True,
        "places": OWNED_PLACE,
        "accompanied": ACCOMPANIED,
    },
    "… narrow place + with, clause end": {
        "position": re.compile(f"{POSSESSED.pattern}|{ACCOMPANIED.pattern}", re.I),
        "turkish": True,
        "places": OWNED_PLACE,
    },
}
SHIPPED_NAMING = "capitalised word, not German"  # h50d's, as shipped
SHIPPED_PREFACE = "capitalised + placed + German possessive + Turkish name, narrow place"  # ``unmentioned``, stop 52

# Stop 53 (h53c, committed before it was ranked): a capitalised word no chunk holds whose camel-case head the vault
# writes as a name ("MacBook": "Mac", ``unnamed.kin_of_a_name``) is said before the answer, not in place of it:
# silenced by none of these, it is named by the shipped preface's capitalised word. Each is (the naming that
# silences, the naming said before the answer).
NAMINGS["capitalised, not a name's kin (.8)"] = {"kin": 0.8}
NAMINGS["capitalised, not a held word's kin"] = {"kin": 0.0}
PAIRS: dict[str, tuple[str, str]] = {
    "shipped (capitalised silences)": (SHIPPED_NAMING, SHIPPED_PREFACE),
    "a name's kin (.8) prefaced": ("capitalised, not a name's kin (.8)", SHIPPED_PREFACE),
    "a held word's kin prefaced": ("capitalised, not a held word's kin", SHIPPED_PREFACE),
}

# Stop 54 (h54e, committed before it was ranked): beside the shipped preface, a word no chunk holds in any fold nor
# a word a typo away (``unnamed._unheld``, ``unheld.near_held``: 1 or 2 edits), 4+ letters, any case, in the
# object's place: after a bare "with" ("con alexa", "mit alexa"), after any preposition of a device's or a
# companion's place, or anywhere. Round two
# (committed before it was ranked, after round one missed "con alexa": its stem "alex" is 1 edit from "alej"):
# the edits allowed by the fold's length (``unheld.AUTO``: 0 under 5 letters, 1 under 8, else 2).
# ``unnamed.OBJECT``: after any preposition of a place or a companion, an optional determiner or possessive.
ANYWHERE = re.compile("")
_SHIPPED_PREFACE_SETTINGS: dict[str, Any] = {"position": POSSESSED, "turkish": True, "places": OWNED_PLACE}
for _place, _pattern in (("with", WITH_OBJECT), ("object", OBJECT), ("anywhere", ANYWHERE)):
    for _near in (1, 2, AUTO):
        _edits = "edits by length" if _near == AUTO else f"{_near} edit{'s' if _near != 1 else ''}"
        NAMINGS[f"… + unheld word, {_place}, {_edits}"] = {
            **_SHIPPED_PREFACE_SETTINGS,
            "unheld": _pattern,
            "near": _near,
        }

# Stop 55 (h55d, committed before it was ranked): beside the shipped preface (its unheld word after "with"), a word
# no chunk holds nor a word a typo away (edits by length, as shipped) that is no word of a dictionary
# (``unheld.common``: simplemma's, of the word's sentence's language, ``intent.turn_language``, or of any of en, de,
# es, tr), after any preposition (``OBJECT``: "a un grupo de whatsapp") or anywhere. wordfreq was looked at and not
# made a candidate: its frequencies come from web text, where a brand is common ("whatsapp" zipf 4.27 in Spanish,
# "huecos" 3.64, "cortafuegos" 2.95), so no threshold names the one and spares the others.
_SHIPPED_UNHELD: dict[str, Any] = {**_SHIPPED_PREFACE_SETTINGS, "unheld": WITH_OBJECT, "near": AUTO}
for _place, _pattern in (("object", OBJECT), ("anywhere", ANYWHERE)):
    for _known, _which in (("sentence", "its sentence's language"), ("any", "any of en/de/es/tr")):
        NAMINGS[f"… + with + uncommon word, {_place}, not in {_which}'s dictionary"] = {
            **_SHIPPED_UNHELD,
            "uncommon": _pattern,
            "spared": spared(languages=_known),
        }
SHIPPED_UNHELD = "… + unheld word, with, edits by length"  # ``unmentioned``, stop 54

# Round two (h55d, committed before it was ranked, after round one: none named 0 answerable; the sentence's
# dictionary after a preposition named 3 of the 35 unanswerable, "whatsapp" twice, "telegram", and 12 answerable:
# German compounds of dictionary words, "Kachelansicht", "Notiztext"; a Spanish verb with its clitic, "traerlas";
# Turkish "ustune" after "en", Spanish's preposition and Turkish's "most"; "macbook", "craftdocs"; any language's
# dictionary named no unanswerable one: German's holds "whatsapp", English's "telegram"): the sentence's dictionary,
# and also spared, a form its lemmatizer reads as a known word's, no preposition in a Turkish sentence, and a
# compound of two words each a dictionary word or held by the vault, in German sentences or in every one.
for _place, _pattern in (("object", OBJECT), ("anywhere", ANYWHERE)):
    for _compounds, _where in (("de", "German"), ("all", "every")):
        NAMINGS[f"… + with + uncommon word, {_place}, forms, no Turkish preposition, {_where} compounds"] = {
            **_SHIPPED_UNHELD,
            "uncommon": _pattern,
            "spared": spared(forms=True, compounds=_compounds, turkish=_place != "object"),
        }

# Round three (h55d, committed before it was ranked, after round two: after a preposition, with every language's
# compounds, 2 more of 35 unanswerable named and 0 answerable, but on the spent browser files "to chek for broken
# plugins" (fourth file rows 9-10, answerable) was named: a 4-letter typo, held to its own letters by ``AUTO``):
# round two's, its word a typo away from a held one at 1 edit under 8 letters, else 2.
NAMINGS["… + with + uncommon word, object, forms, no Turkish preposition, every compounds, 1 edit under 8"] = {
    **_SHIPPED_UNHELD,
    "uncommon": OBJECT,
    "spared": spared(forms=True, compounds="all", turkish=False),
    "uncommon_near": (1, 8),
}
