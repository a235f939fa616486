"""The lines Sentinel writes itself around a vault answer, in the turn's language (en, de, es, tr).

The vault's words are quoted in the page's language and the model writes in the question's; the rest of what a
person reads is Sentinel's own: the status line a door shows beside the answer, the heading of a quoted answer,
the line a door shows while the answer is made, and "the vault does not say". Seen in Open WebUI (docs/answers.md,
"In the browser after stop 45's fixes"): in a Turkish chat those were English. The language is decided once, by
``intent.turn_language``; a save's own lines are ``save_replies``.
"""

from __future__ import annotations

from typing import NamedTuple

# A count's wording, for n == 1 and for any other n: a person reads "1 Satz", "3 Sätze", never "1 Satz/Sätze"
# (seen in Open WebUI after stop 46). One-versus-other is the whole plural rule of en, de and es; Turkish keeps
# a noun singular after a number, so its two forms are the same.
Forms = tuple[str, str]


def counted(forms: Forms, n: int) -> str:
    """``forms`` worded for ``n`` ("{n}" filled in)."""
    return forms[0 if n == 1 else 1].format(n=n)


class AnswerLines(NamedTuple):
    searching: str  # while a vault question is answered
    saving: str  # while a save is written
    quoted_heading: str  # opens an extractive answer
    checked: str  # status: a written answer
    quoted: str  # status: an extractive answer
    left_out: Forms  # status, added: {n} sentences the gates dropped (not supported, or not answering)
    not_in_vault: str
    none_found: str  # status beside "the vault does not say": what was done, which that reply does not say
    no_page: str
    closest: str  # {pages}
    said_above: str  # opens the one quote of a follow-up whose every answering sentence the answer before showed
    not_named: str  # {name}: the question names a thing no page names (``answer.unnamed``)


LINES = {
    "en": AnswerLines(
        "Searching your vault…",
        "Saving…",
        "From your vault (quoted):",
        "every sentence checked against its source",
        "quoted from your vault",
        ("; {n} sentence left out by the checks", "; {n} sentences left out by the checks"),
        "The vault does not say.",
        "searched your vault: nothing quoted, nothing written",
        "No page matches the question.",
        "The closest pages are {pages}.",
        "As the answer above says (quoted):",
        "The vault does not mention “{name}”.",
    ),
    "de": AnswerLines(
        "Durchsuche deinen Vault…",
        "Speichere…",
        "Aus deinem Vault (wörtlich):",
        "jeder Satz an seiner Quelle geprüft",
        "wörtlich aus deinem Vault",
        ("; {n} Satz von den Prüfungen weggelassen", "; {n} Sätze von den Prüfungen weggelassen"),
        "Der Vault sagt das nicht.",
        "Vault durchsucht: nichts zitiert, nichts geschrieben",
        "Keine Seite passt zur Frage.",
        "Am nächsten kommen {pages}.",
        "Wie die Antwort oben sagt (wörtlich):",
        "Der Vault erwähnt „{name}“ nicht.",
    ),
    "es": AnswerLines(
        "Buscando en tu bóveda…",
        "Guardando…",
        "De tu bóveda (citado):",
        "cada frase comprobada con su fuente",
        "citado de tu bóveda",
        ("; {n} frase omitida por las comprobaciones", "; {n} frases omitidas por las comprobaciones"),
        "La bóveda no lo dice.",
        "bóveda consultada: nada citado, nada escrito",
        "Ninguna página responde a la pregunta.",
        "Las páginas más cercanas son {pages}.",
        "Como dice la respuesta anterior (citado):",
        "La bóveda no menciona «{name}».",
    ),
    "tr": AnswerLines(
        "Kasanda aranıyor…",
        "Kaydediliyor…",
        "Kasandan (alıntı):",
        "her cümle kaynağıyla karşılaştırıldı",
        "kasandan alıntılandı",
        ("; kontrollerin çıkardığı {n} cümle", "; kontrollerin çıkardığı {n} cümle"),
        "Kasa bunu söylemiyor.",
        "kasada arandı: alıntı yok, yazılan yok",
        "Soruya uyan bir sayfa yok.",
        "En yakın sayfalar: {pages}.",
        "Yukarıdaki yanıtın dediği gibi (alıntı):",
        "Kasada “{name}” geçmiyor.",
    ),
}


def lines_in(language: str) -> AnswerLines:
    """The lines in ``language`` (English for a language these four do not cover)."""
    return LINES.get(language, LINES["en"])


def answer_status(language: str, answered: bool, dropped: int) -> str:
    """The short line a door shows beside a vault answer: how it was checked, and what the gate left out."""
    lines = lines_in(language)
    return (lines.checked if answered else lines.quoted) + (counted(lines.left_out, dropped) if dropped else "")
