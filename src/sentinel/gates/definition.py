"""The definition gate: a concept page is written only from sentences of the sources that define it.

Protects wiki/ from pages about names the vault merely mentions: mentioned a hundred times is still not
defined once. The model's word is never enough, because a model that says yes to everything would define
everything. A sentence counts only when every check below passes:

- ``model_agrees``: the model said yes to "does this sentence say what X is?" *and* no to the contrary
  question "does it only use or mention X without saying what it is?" (a yes-machine fails the second, a
  no-machine the first);
- ``plain_statement``: it is a statement, not a question or an instruction ("Öffne die Einstellungen.");
- ``name_as_subject``: code finds the definitional shape in the page's language: the name, with the casing it
  has in the sources (``Suchen`` the noun is not ``suchen`` the verb; only the first letter may differ, at a
  sentence's start or, in English and Spanish, after an article: "The workspace is ..." for ``Workspace``), as
  the subject (after at most an opening phrase and an article or possessive) followed, past an optional
  apposition, by a copula with a noun phrase or a defining verb ("X is a ...", "X are beta releases.",
  "X sind optionale Funktionen", "X bezeichnet ...", "X es una ...", "X functions as ...", "X ... bir
  uygulamadır"), or introduced as a term ("... is called X", "Unter X versteht man"). What a thing lets you
  do ("X allows you to ...") is not what it is: the same shape carries a single capability, and no code
  tells the two apart.

The name may be spelt otherwise in the sentence (singular, plural, hyphen; ``spellings``): the help vault's
Glossary defines "An **attachment**" where links reach for ``Attachments``. One such sentence is enough
(``judge_definitions``): a vault says what a thing is once, on the thing's own page or in a glossary, and
the shape check lets no mention through on the labelled definitions set, the sentences on other pages than
the name's own included (docs/maintain.md; those are the ones that decide when the page is missing). None
leaves the concept in the growth queue as "mentioned but never defined". Languages: en, de, es, tr; a sentence
whose language the stop words do not tell is held to the patterns of all four.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sentinel.gates import Verdict
from sentinel.gates.verbatim import contains_verbatim, normalise
from sentinel.vault.name_words import raw_words, variant_key

REQUIRED_DEFINITIONS = 1
LANGUAGES = ("en", "de", "es", "tr")


@dataclass(frozen=True)
class Candidate:
    sentence: str
    source: str  # vault path of the page the sentence is quoted from
    language: str  # the paragraph's language ("" when the stop words do not tell)
    says_what_it_is: bool  # the model's answer to "does this sentence say what X is?"
    only_mentions: bool  # the model's answer to "does it only use or mention X without saying what it is?"


def names_concept(sentence: str, name: str) -> bool:
    """True when the sentence carries the concept's name verbatim (case-folded: the cheap first filter) or
    another spelling of it (``spellings``)."""
    return contains_verbatim(normalise(sentence), name) or bool(spellings(sentence, name))


_NAME_WORD = re.compile(r"[^\W_]+")


def spellings(sentence: str, name: str) -> list[str]:
    """The spans of the sentence that spell ``name`` otherwise: equal ``variant_key`` (the Glossary's singular
    "An **attachment** is ..." for the title ``Attachments``, ``Web viewer`` for ``Web-Viewer``), but not the
    name itself up to case, which keeps its own casing rule (``suchen`` the verb is not ``Suchen``).

    A spelling is another name only where it has a page of its own (Workspace, the interface, beside Workspaces,
    the plugin): the concept step leaves a name alone whose spelling has a page before anything is asked
    (``concepts.write_concept_pages``), so a spelling reaching this gate has none."""
    words = list(_NAME_WORD.finditer(sentence))
    size, key = len(raw_words(name)), variant_key(name)
    found = []
    for i in range(len(words) - size + 1):
        span = sentence[words[i].start() : words[i + size - 1].end()]
        if span.casefold() != name.casefold() and variant_key(span) == key:
            found.append(span)
    return list(dict.fromkeys(found))


_STOP_WORDS = {
    "en": {"the", "is", "are", "and", "of", "to", "a", "an", "in", "that", "it", "with", "for", "you", "this"},
    "de": {"der", "die", "das", "und", "ist", "sind", "ein", "eine", "nicht", "mit", "zu", "sie", "du", "von"},
    "es": {"el", "la", "los", "las", "es", "son", "de", "que", "y", "un", "una", "para", "con", "del", "por"},
    "tr": {"bir", "ve", "bu", "için", "ile", "olarak", "da", "de", "çok", "daha", "gibi", "veya", "her", "şu"},
}
_WORDS = re.compile(r"[^\W\d_]+")


def language_of(text: str) -> str:
    """The language whose stop words the text carries most, or "" when none leads."""
    words = [w.casefold() for w in _WORDS.findall(text)]
    scores = {lang: sum(w in stop for w in words) for lang, stop in _STOP_WORDS.items()}
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] == 0 or ranked[0] == ranked[1]:
        return ""
    return max(scores, key=lambda lang: scores[lang])


def model_agrees(candidate: Candidate) -> Verdict[Candidate]:
    """The model said the sentence defines the name and did not also say it only mentions it."""
    if not candidate.says_what_it_is:
        return Verdict(False, "the model did not say it says what the term is", dropped=[candidate])
    if candidate.only_mentions:
        return Verdict(False, "the model also said it only mentions the term (contrary question)", dropped=[candidate])
    return Verdict(True, kept=[candidate])


# Imperative openings per language: a how-to step names things without saying what they are.
_IMPERATIVE = {
    "en": re.compile(
        r"^(?:to \w+[^,]*, )?(?:open|click|select|choose|go|use|press|type|enter|enable|disable|add|create|"
        r"drag|tap|right-click|find|search|navigate|set|turn|make|see|check|install|run|copy|paste|move|"
        r"rename|delete|remove|pick|hover|toggle|switch|save|start|try|read|visit|follow|keep)\b(?!\s+(?:is|are)\b)",
        re.IGNORECASE,
    ),
    "de": re.compile(
        r"^(?:\w+(?:e|en)\s+sie\b|(?:öffne|klicke|wähle|gehe|drücke|nutze|verwende|füge|erstelle|gib|"
        r"suche|tippe|ziehe|aktiviere|deaktiviere|navigiere|halte|speichere|lösche|benenne|"
        r"starte|schau|siehe|beachte)\b(?!\s+(?:ist|sind)\b))",
        re.IGNORECASE,
    ),
    "es": re.compile(
        r"^(?:abre|haz|selecciona|elige|ve|pulsa|presiona|usa|utiliza|escribe|añade|agrega|crea|"
        r"busca|arrastra|activa|desactiva|navega|mantén|guarda|elimina|borra|cambia|consulta|"
        r"toca|copia|pega|mueve|instala|ejecuta|inicia)\b(?!\s+(?:es|son)\b)",
        re.IGNORECASE,
    ),
    # Turkish commands end the sentence: "... açın.", "... tıklayın.", "... seçiniz."
    "tr": re.compile(r"\b\w+(?:yın|yin|yun|yün|ın|in|un|ün|ınız|iniz|unuz|ünüz)\s*[.!]?$", re.IGNORECASE),
}
_TR_DEFINING_END = re.compile(
    r"(?:\w+['’]?(?:dır|dir|dur|dür|tır|tir|tur|tür)|anlamına gelir|demektir|olarak tanımlanır|ifade eder|"
    r"denir|denilir|adı verilir)\s*\.?$",
    re.IGNORECASE,
)
# A "-dir" on a verb's tense is a statement about an event, not a definition: "senkronize edilmiştir" (has
# been synced), "giriş yapmanız gerekecektir" (you will need to log in), "kaydetmektedir" (is saving),
# "etkinleştirilmiş olmalıdır" (must be enabled).
_TR_VERBAL_END = re.compile(
    r"(?:mış|miş|muş|müş|acak|ecek|makta|mekte|yor|malı|meli)(?:dır|dir|dur|dür|tır|tir|tur|tür)\s*\.?$",
    re.IGNORECASE,
)
# A Turkish definition says what the thing is: "X, ... bir hizmettir" / "X bir klasördür" (a "bir" just before
# the copula word), or "X, ... anlamına gelir" (means); the name is followed by a comma or by "bir". A "-dir" on
# an adjective or an existential ("planınıza bağlıdır": depends on your plan; "ihtiyacınız vardır": you need)
# is a statement about the thing, not what it is.
_TR_IS_A = re.compile(r"\bbir\s+(?:\S+\s+){0,2}\S+(?:dır|dir|dur|dür|tır|tir|tur|tür)\s*\.?$", re.IGNORECASE)
_TR_MEANS = re.compile(r"(?:anlamına gelir|demektir|olarak tanımlanır|ifade eder)\s*\.?$", re.IGNORECASE)
_TR_MIN_WORDS = 5
_EMPHASIS = re.compile(r"\*\*|__|[*`]")


def _plain(sentence: str) -> str:
    return _EMPHASIS.sub("", sentence).strip()


def plain_statement(sentence: str, language: str) -> Verdict[str]:
    """The sentence states something: it is not a question, an exclamation or an instruction."""
    text = _plain(sentence)
    if "?" in text or text.startswith("¿"):
        return Verdict(False, "it is a question", dropped=[sentence])
    if text.endswith("!"):
        return Verdict(False, "it is an exclamation", dropped=[sentence])
    for lang in [language] if language else LANGUAGES:
        if lang == "tr" and _TR_DEFINING_END.search(text):
            continue  # "-dir" endings are statements, whatever the imperative suffixes look like
        if _IMPERATIVE[lang].search(text):
            return Verdict(False, "it is an instruction, not a statement", dropped=[sentence])
    return Verdict(True, kept=[sentence])


# An opening phrase ending in a comma ("In short, ", "In this design, ") and an article may precede the name.
_OPENING = r"(?:[^,;:.]{1,60},\s+)?"
_ARTICLE = {
    "en": r"(?:(?i:the|a|an)\s+|\w+['’]s\s+)",  # or a possessive: "Obsidian’s sandbox vault is a feature"
    "de": r"(?:(?i:der|die|das|ein|eine)\s+)",
    "es": r"(?:(?i:el|la|los|las|lo|un|una)\s+)",
    "tr": r"(?:(?i:bir)\s+)",
}
# Between the name and the verb: a parenthesis or an apposition set off by commas.
_APPOSITION = r"\s*(?:\([^)]{0,80}\)\s*)?(?:,[^,]{1,80},\s*)?"
# A noun phrase with no article: in German the noun's capital shows it ("sind optionale Funktionen", "sind
# Beta-Releases"; not "sind nicht", "ist keine", "sind nur für Benutzer"); in English a plural noun that ends the
# sentence or is followed by what it is ("are beta releases.", "are optional features created by ...", "are
# backlinks to ..."; not "are supported in notes.", "are case-insensitive.", "are always in sync").
_DE_BARE_NOUN = r"(?!(?:nicht|kein\w*)\b)(?:[a-zäöüß][\w-]*(?:e|en|er|es|em)\s+){0,2}[A-ZÄÖÜ][\w-]+"
_EN_PREPOSITION = r"(?:in|on|at|to|by|with|from|for|of|into|via)\b"
_EN_WORD = r"(?!(?:only|also|not|now|then|just)\b)[\w-]+(?<!ly)"  # an adverb says how, not what
_EN_MODIFIER = rf"(?!{_EN_PREPOSITION}){_EN_WORD}"
_EN_PLURAL = r"(?!(?:always|sometimes|perhaps|less|thus|unless|across|plus|this|its|has|was|is|as)\b)[\w-]+s"
_EN_BARE_PLURAL = (
    rf"(?:{_EN_MODIFIER}\s+){{0,2}}{_EN_PLURAL}"
    r"(?:\s*\.?$|\s+(?:that|which|who|created|added|built|made|written|for|of|to|in|on|with)\b)"
)
# "is a thing that ...": up to four words before what the thing is for or does, but not a participle with its
# preposition ("are added to the root of your vault", "are stored in YAML") nor a progressive ("The Markdown is
# being processed outside of the HTML context": found by the definitions set's out-of-page rows).
_EN_WHAT_FOLLOWS = (
    rf"(?!\S+ed\s+{_EN_PREPOSITION}|being\b){_EN_WORD}(?:\s+{_EN_WORD}){{0,3}}\s+"
    r"(?:that|which|who|where|for|of|used|made|designed)\b"
)
_VERB = {
    "en": r"(?:(?:is|are|was|were)(?!\s+not\b)\s+(?:(?:both|also|simply)\s+)?(?:(?:a|an|the|one|any)\b|"
    rf"{_EN_WHAT_FOLLOWS})|"
    rf"(?:are|were)\s+{_EN_BARE_PLURAL}|is\s+where\b|(?:serves|acts|functions)\s+as\b|means\b|refers\s+to\b|"
    r"denotes\b|stands\s+for\b|is\s+defined\s+as\b|is\s+short\s+for\b|is\s+known\s+as\b|is\s+called\b)",
    "de": r"(?:(?:ist|sind|war|waren)(?!\s+nicht\b)\s+(?:(?:ein|eine|einer|eines|der|die|das|den|dem|des)\b|"
    rf"{_DE_BARE_NOUN})|bezeichnet\b|bedeutet\b|heißt\b|meint\b|steht\s+für\b|beschreibt\b|dient\s+als\b|"
    r"nennt\s+man\b|versteht\s+man\b)",
    "es": r"(?:(?:es|son|era|eran)\s+(?:un|una|unos|unas|el|la|los|las|lo)\b|significa\b|se\s+refiere\s+a\b|"
    r"designa\b|consiste\s+en\b|se\s+define\s+como\b|se\s+llama\b|se\s+denomina\b|describe\b|"
    r"(?:sirve|funciona|actúa)\s+como\b)",
}
_INTRODUCED = {
    "en": r"\b(?:is|are)\s+(?:called|known\s+as|named|termed)\s+(?:the\s+|a\s+|an\s+)?{name}\b",
    "de": r"^(?i:unter|als)\s+(?:(?i:dem|der|den|einem|einer)\s+)?{name}\s+(?:versteht|bezeichnet)\s+man\b",
    "es": r"\bse\s+(?:llama|denomina|conoce\s+como)\s+(?:el\s+|la\s+|los\s+|las\s+)?{name}\b",
    "tr": r"^[^.]{1,120}\s+{name}\s+(?:denir|denilir|adı\s+verilir)\s*\.?$",
}


def _name_pattern(name: str, loose_first: bool) -> str:
    """The name as written in the sources. ``loose_first``: its first letter may be either case, which a sentence's
    start allows, and in English and Spanish an article too ("The workspace is ..." for ``Workspace``); a German
    noun keeps its capital after an article, so ``Suchen`` the noun is never matched by ``suchen`` the verb. Only
    the first letter: ``The Growth Queue`` is not ``growth queue``."""
    words = [re.escape(word) for word in name.split()]
    pattern = r"\s+".join(words)
    if loose_first and name[:1].isalpha() and name[0].upper() != name[0].lower():
        pattern = f"[{re.escape(name[0].upper())}{re.escape(name[0].lower())}]" + pattern[len(re.escape(name[0])) :]
    return rf"(?<!\w){pattern}(?!\w)"


# Where an article lets the name's first letter change case: not German (nouns are capitalised there), not
# Turkish (no article before a subject but "bir").
_LOOSE_AFTER_ARTICLE = frozenset({"en", "es"})


def _shaped(text: str, name: str, lang: str) -> bool:
    exact, loose = _name_pattern(name, False), _name_pattern(name, True)
    at_start = loose if name[:1].islower() else exact
    subject = rf"^(?:{at_start}|{_OPENING}{_ARTICLE[lang]}?{exact}"
    if lang in _LOOSE_AFTER_ARTICLE:
        subject += rf"|{_OPENING}{_ARTICLE[lang]}{loose}"  # the article is what lets the case change here
    subject += ")"
    if lang == "tr":
        # The copula is a suffix on the last word, which a short command can end with too ("oluştur"), and the
        # subject is in the nominative, with no case suffix ("Ayarlar'ın ...": of the Settings).
        long_enough = len(text.split()) >= _TR_MIN_WORDS
        nominal = (_TR_IS_A.search(text) or _TR_MEANS.search(text)) and not _TR_VERBAL_END.search(text)
        if long_enough and nominal and re.search(subject + r"(?:\s*,|\s+bir\b)", text):
            return True
    elif re.search(subject + _APPOSITION + r"\s*" + _VERB[lang], text):
        return True
    introduced = _INTRODUCED[lang].replace("{name}", exact)
    return re.search(introduced, text) is not None


def subject(sentence: str, name: str, language: str) -> str | None:
    """How the sentence spells ``name`` where it has the definitional shape of its language with the name as the
    thing defined: the name itself, else one of its ``spellings`` (in German only with the name's capital, which
    is what makes it the noun), else None."""
    text = _plain(sentence)
    for written in [name, *spellings(text, name)]:
        if language == "de" and written[:1].isupper() != name[:1].isupper():
            continue
        if any(_shaped(text, written, lang) for lang in ([language] if language else LANGUAGES)):
            return written
    return None


def name_as_subject(sentence: str, name: str, language: str) -> Verdict[str]:
    """The sentence has the definitional shape of its language with ``name`` (or a spelling of it, see
    ``spellings``) as the thing defined."""
    if subject(sentence, name, language) is not None:
        return Verdict(True, kept=[sentence])
    return Verdict(
        False, f"no definitional shape with {name!r} (as the sources spell it) as its subject", dropped=[sentence]
    )


def worth_asking(sentence: str, name: str, language: str) -> bool:
    """Whether the code checks let the sentence through, so asking the model about it can matter."""
    return plain_statement(sentence, language).passed and name_as_subject(sentence, name, language).passed


def judge_definitions(candidates: Iterable[Candidate], name: str) -> Verdict[Candidate]:
    """Keep the distinct candidates every check lets through; passed when at least ``REQUIRED_DEFINITIONS``
    are kept."""
    kept: list[Candidate] = []
    dropped: list[Candidate] = []
    seen: set[str] = set()
    for candidate in candidates:
        key = normalise(candidate.sentence)
        if key in seen:
            continue
        seen.add(key)
        checks = (
            model_agrees(candidate),
            plain_statement(candidate.sentence, candidate.language),
            name_as_subject(candidate.sentence, name, candidate.language),
        )
        (kept if all(check.passed for check in checks) else dropped).append(candidate)
    if len(kept) >= REQUIRED_DEFINITIONS:
        return Verdict(True, kept=kept, dropped=dropped)
    return Verdict(
        False, f"{len(kept)} defining sentences in the sources; {REQUIRED_DEFINITIONS} needed", kept, dropped
    )
