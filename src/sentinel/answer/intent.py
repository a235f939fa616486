"""What a user turn asks for, decided from the user's own words by code.

Five intents: save (keep something), research (go to the web), link (how a page connects), small talk, and
everything else a vault question. Save and research are the two that act, so only the user's words can
trigger them: a request form ("save this", "kaydet", "speichere das", "guarda esto") and never a question
about saving ("how do I save a note in Obsidian?" is a vault question). The model's one-word label is a second
opinion that may only turn a vault question into small talk (nothing is searched or written for a greeting);
it can never start a save or a web search, so a model that says "save" to everything saves nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from sentinel.vault.language import question_language, save_language


class Intent(StrEnum):
    SAVE = "save"
    RESEARCH = "research"
    VAULT = "vault"
    LINK = "link"
    SMALL_TALK = "small_talk"


_I = re.IGNORECASE
# The verbs that ask to keep something, as a request (imperative, or "can you ..."), per language.
_SAVE_VERB = (
    r"save|note|keep|remember|record|store|jot\s+down|write\s+down"  # en
    r"|speicher\w*|notier\w*|merk\w*\s+dir|halt\w*\s+fest|behalt\w*"  # de
    r"|guarda\w*|guardá|anota\w*|apunta\w*|recuerda\w*|graba\w*"  # es
    r"|kaydet\w*|kayded\w*|not\s+al|not\s+et|sakla\w*|hatırla|aklında\s+tut"  # tr
)
_SAVE_AT_START = re.compile(
    r"^\W*(?:(?:please|bitte|por\s+favor|lütfen)\W+)?(?:(?:can|could|would)\s+you\s+(?:please\s+)?"
    r"|(?:kannst|könntest|kann)\s+(?:du|man)\s+(?:(?:das|dies|es|bitte)\s+)*"
    r"|(?:puedes|podrías|podrias)\s+(?:por\s+favor\s+)?)?"
    rf"(?:{_SAVE_VERB})\b",
    _I,
)
# Turkish puts the verb last: "bunu kaydet", "şunu not al: ...", "bunu kaydeder misin?".
_SAVE_VERB_LAST = re.compile(
    r"^\W*(?:lütfen\s+)?(?:bunu|şunu|bunları|şunları|onu|bu\s+notu|bu\s+sohbeti)\s+"
    r"(?:kaydet\w*|kayded\w*|not\s+al\w*|not\s+et\w*|sakla\w*)",
    _I,
)
# Questions about how saving works: a question word before the verb makes it a vault question.
_HOW_TO = re.compile(
    r"^\W*(?:how|where|why|when|what|wie|wo|warum|wann|was|cómo|como|dónde|donde|por\s*qué|cuándo|qué|nasıl|"
    r"nerede|neden|ne\s+zaman)\b"
    r"|\b(?:how\s+(?:do|can|should)\s+i|wie\s+kann\s+ich|cómo\s+puedo|nasıl\s+kaydeder\w*)\b",
    _I,
)
# Words that name the web (the same loanwords in the four languages, or a URL): research is the one act that
# leaves the vault, and only on the user's request; words naming where it goes are that request.
_NAMES_THE_WEB = re.compile(r"\b(?:web|internet|online)|https?://", _I)
# A request to look something up: naming the web is not enough for an answer to go there ("what does the Web
# Clipper save?" is a question about the vault's pages on it).
_LOOK_UP = re.compile(
    r"\b(?:search|look\w*\s+up|look\s+(?:it|this|that)\s+up|research|find|google|browse|check"
    r"|such\w*|recherchier\w*|find\w*|schau\w*\s+nach|nachschlagen"
    r"|busca\w*|investiga\w*|encuentra\w*|averigua\w*"
    r"|ara\b|ara[sşy]\w*|bul\b|bul[au]\w*|bak\b)",
    _I,
)
_LINK = re.compile(
    r"\b(?:links?\s+to|linked\s+(?:to|from)|points?\s+(?:at|to)|connected\s+to|connects?\s+to|backlinks?"
    r"|verlinkt|verweist\s+auf|verbunden|enlaza\w*\s+(?:a|con)|conectad[oa]s?\s+con|apunta\w*\s+a"
    r"|bağlantı\w*|bağlı\w*|bağlan\w*)\b",
    _I,
)
_SMALL_TALK = re.compile(
    r"^\W*(?:hi|hello|hey|thanks|thank\s+you|good\s+(?:morning|evening|night)|bye|ok(?:ay)?|cool|great"
    r"|hallo|danke|guten\s+(?:morgen|tag|abend)|tschüss|hola|gracias|buenos\s+días|buenas|adiós"
    r"|merhaba|selam|teşekkürler|teşekkür\s+ederim|sağ\s*ol|günaydın|iyi\s+akşamlar|hoşça\s+kal)\W*$",
    _I,
)
# The subject of a link question: a [[link]], a quoted name, or the words after the link phrase.
_QUOTE_MARKS = "\"“”„'‘’‚«»"
_QUOTED = re.compile(rf"\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]|[{_QUOTE_MARKS}]([^{_QUOTE_MARKS}]{{2,80}})[{_QUOTE_MARKS}]")
_LINK_TAIL = re.compile(
    r"\b(?:links?\s+to|linked\s+to|points?\s+(?:at|to)|connected\s+to|connects\s+to|backlinks\s+of)\s+(.+?)\W*$",
    _I,
)

_LINK_MIDDLE = re.compile(r"\b(?:what|which)\s+(?:is|are|does)\s+(.+?)\s+(?:connected|linked|link)\s+(?:to|with)\b", _I)


@dataclass(frozen=True)
class TurnIntent:
    intent: Intent
    by: str  # "code", or "model" when the model's label changed the code's reading
    subject: str = ""  # link: the page or name asked about; save: the words to keep, when the turn holds them


def names_the_web(text: str) -> bool:
    """Whether the user's words name the web (the one rule for research, here and in the pool's repair)."""
    return bool(_NAMES_THE_WEB.search(text))


def asks_to_save(text: str) -> bool:
    """Whether the words ask to keep something (a request form, not a question about how saving works)."""
    if _HOW_TO.search(text):
        return False
    return bool(_SAVE_AT_START.search(text) or _SAVE_VERB_LAST.search(text))


def turn_language(text: str, earlier: str = "") -> str:
    """The language every line Sentinel writes itself for this turn is in (en, de, es, tr): a save request's
    by its verb (``save_language``), a question's by its words, else by the earlier question's (a follow-up as
    short as "Y en Plus?"), else English. The one place a turn's language is decided."""
    if asks_to_save(text):
        return save_language(text)
    return question_language(text) or question_language(earlier) or "en"


def words_to_keep(text: str) -> str:
    """What a save request itself holds to keep: the words after its colon or dash ("save this: X"), or ""."""
    _, _, tail = _split_request(text)
    return tail.strip()


def _split_request(text: str) -> tuple[str, str, str]:
    match = re.search(r"\s*[:—–]\s*|\s+-\s+", text)
    if not match:
        return text, "", ""
    return text[: match.start()], match.group(0), text[match.end() :]


def link_subject(text: str) -> str:
    """The page or name a link question is about ("" when the words do not say)."""
    quoted = _QUOTED.search(text)
    if quoted:
        return (quoted.group(1) or quoted.group(2) or "").strip()
    found = _LINK_TAIL.search(text) or _LINK_MIDDLE.search(text)
    return found.group(1).strip().removeprefix("the ").removeprefix("my ") if found else ""


def by_code(text: str) -> TurnIntent:
    """The intent the words show, with no model involved (the path that must work when the model is down)."""
    words = " ".join(text.split())
    if asks_to_save(words):
        return TurnIntent(Intent.SAVE, "code", words_to_keep(words))
    if names_the_web(words) and _LOOK_UP.search(words) and not _HOW_TO.search(words):
        return TurnIntent(Intent.RESEARCH, "code")
    if _LINK.search(words) and (subject := link_subject(words)):
        return TurnIntent(Intent.LINK, "code", subject)
    if _SMALL_TALK.search(words):
        return TurnIntent(Intent.SMALL_TALK, "code")
    return TurnIntent(Intent.VAULT, "code")


def with_second_opinion(found: TurnIntent, label: str | None) -> TurnIntent:
    """The code's reading, changed only where the model's label may change it: a vault question the model calls
    small talk (a greeting the patterns missed) is answered as small talk. Nothing else moves."""
    if found.intent is Intent.VAULT and (label or "").strip().lower().replace(" ", "_") == Intent.SMALL_TALK:
        return TurnIntent(Intent.SMALL_TALK, "model")
    return found
