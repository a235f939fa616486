"""What a save says to the person who asked for it, in the request's language (en, de, es, tr).

The language is decided once, by ``intent.save_language`` from the request's own verb ("bunu kaydet",
"speichere das", "guarda esto"), and every line a save shows comes from here in it: the reply, the short status
line a door shows beside it (Open WebUI's "Saved notes/…"), and the replies when nothing was saved.
"""

from __future__ import annotations

from typing import NamedTuple

from sentinel.answer.intent import save_language
from sentinel.answer.lines import Forms


class SaveReplies(NamedTuple):
    saved: str
    updated: str
    yours: str
    rested: Forms  # {n}: the passages quoted
    recorded: str
    nothing_yet: str
    not_saved: str  # {why}: what the write said
    read_only: str


REPLIES = {
    "en": SaveReplies(
        "Saved",
        "Updated",
        "with your words",
        (
            "and {n} passage the answer rested on, quoted with its page",
            "and {n} passages the answer rested on, quoted with their pages",
        ),
        "The conversation is recorded in",
        "There is nothing to save yet: say what to keep, e.g. 'save this: my favourite tea is genmaicha'.",
        "Nothing was saved: {why}",
        "Saving is not available through this read-only door.",
    ),
    "de": SaveReplies(
        "Gespeichert:",
        "Ergänzt:",
        "mit deinen Worten",
        (
            "und {n} Passage, auf die sich die Antwort stützte, wörtlich mit ihrer Seite",
            "und {n} Passagen, auf die sich die Antwort stützte, wörtlich mit ihren Seiten",
        ),
        "Das Gespräch steht in",
        "Es gibt noch nichts zu speichern: sag, was ich festhalten soll, z. B. „speichere das: mein Lieblingstee "
        "ist Genmaicha“.",
        "Nichts wurde gespeichert: {why}",
        "Über diesen nur lesenden Zugang kann nichts gespeichert werden.",
    ),
    "es": SaveReplies(
        "Guardado",
        "Actualizado",
        "con tus palabras",
        (
            "y {n} pasaje en que se basó la respuesta, citado con su página",
            "y {n} pasajes en que se basó la respuesta, citados con sus páginas",
        ),
        "La conversación está en",
        "Todavía no hay nada que guardar: di qué guardar, p. ej. «guarda esto: mi té favorito es el genmaicha».",
        "No se guardó nada: {why}",
        "Este acceso es de solo lectura: no se puede guardar nada por aquí.",
    ),
    "tr": SaveReplies(
        "Kaydedildi:",
        "Güncellendi:",
        "senin sözlerinle",
        (
            "ve yanıtın dayandığı {n} pasaj, sayfasıyla alıntılanarak",
            "ve yanıtın dayandığı {n} pasaj, sayfalarıyla alıntılanarak",
        ),
        "Konuşmanın kaydı:",
        "Henüz kaydedilecek bir şey yok: neyi saklayacağımı söyle, ör. «bunu kaydet: en sevdiğim çay genmaicha».",
        "Hiçbir şey kaydedilmedi: {why}",
        "Bu salt okunur erişimden kaydetme yapılamaz.",
    ),
}


def replies_for(request: str) -> SaveReplies:
    """The save lines in the language of ``request`` (the user's save request)."""
    return REPLIES[save_language(request)]


def status_line(request: str, note: str, updated: bool) -> str:
    """The short line a door shows beside a save's reply: the verb and the note ("Kaydedildi: notes/…")."""
    replies = replies_for(request)
    return f"{replies.updated if updated else replies.saved} {note}"
