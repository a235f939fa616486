"""What a save says to the person who asked for it, in the request's language (en, de, es, tr).

The language is decided once, by ``vault.language.save_language`` from the request's own verb ("bunu kaydet",
"speichere das", "guarda esto"), and every line a save shows comes from here in it: the reply, the short status
line a door shows above it (Open WebUI's "Saved"), and the replies when nothing was saved. The status says what
happened and the reply the rest: a person reads each thing once.
"""

from __future__ import annotations

from typing import NamedTuple

from sentinel.answer.lines import Forms, counted
from sentinel.vault.language import save_language


class SaveReplies(NamedTuple):
    saved: str  # status: a new note written
    updated: str  # status: an existing note added to
    not_saved: str  # status: nothing written (nothing to keep yet, a refused write, a read-only door)
    holds: str  # reply, a new note: {note} (its link), {words}
    holds_too: str  # reply, a note added to
    rested: Forms  # {n}: the passages quoted
    recorded: str  # {transcript}
    nothing_yet: str
    failed: str  # {why}: what the write said
    read_only: str


REPLIES = {
    "en": SaveReplies(
        "Saved",
        "Updated",
        "Not saved",
        "{note} holds your words: “{words}”",
        "{note} now also holds your words: “{words}”",
        (
            "and {n} passage the answer rested on, quoted with its page",
            "and {n} passages the answer rested on, quoted with their pages",
        ),
        "The conversation is recorded in {transcript}.",
        "There is nothing to save yet: say what to keep, e.g. 'save this: my favourite tea is genmaicha'.",
        "The note could not be written: {why}",
        "Saving is not available through this read-only door.",
    ),
    "de": SaveReplies(
        "Gespeichert",
        "Ergänzt",
        "Nicht gespeichert",
        "{note} enthält deine Worte: “{words}”",
        "{note} enthält jetzt auch deine Worte: “{words}”",
        (
            "und {n} Passage, auf die sich die Antwort stützte, wörtlich mit ihrer Seite",
            "und {n} Passagen, auf die sich die Antwort stützte, wörtlich mit ihren Seiten",
        ),
        "Das Gespräch steht in {transcript}.",
        "Es gibt noch nichts zu speichern: sag, was ich festhalten soll, z. B. „speichere das: mein Lieblingstee "
        "ist Genmaicha“.",
        "Die Notiz konnte nicht geschrieben werden: {why}",
        "Über diesen nur lesenden Zugang kann nichts gespeichert werden.",
    ),
    "es": SaveReplies(
        "Guardado",
        "Actualizado",
        "No guardado",
        "{note} guarda tus palabras: “{words}”",
        "{note} guarda ahora también tus palabras: “{words}”",
        (
            "y {n} pasaje en que se basó la respuesta, citado con su página",
            "y {n} pasajes en que se basó la respuesta, citados con sus páginas",
        ),
        "La conversación está en {transcript}.",
        "Todavía no hay nada que guardar: di qué guardar, p. ej. «guarda esto: mi té favorito es el genmaicha».",
        "No se pudo escribir la nota: {why}",
        "Este acceso es de solo lectura: no se puede guardar nada por aquí.",
    ),
    "tr": SaveReplies(
        "Kaydedildi",
        "Güncellendi",
        "Kaydedilmedi",
        "Sözlerin {note} notunda: “{words}”",
        "Sözlerin {note} notuna eklendi: “{words}”",
        (
            "ve yanıtın dayandığı {n} pasaj, sayfasıyla alıntılanarak",
            "ve yanıtın dayandığı {n} pasaj, sayfalarıyla alıntılanarak",
        ),
        "Konuşmanın kaydı: {transcript}.",
        "Henüz kaydedilecek bir şey yok: neyi saklayacağımı söyle, ör. «bunu kaydet: en sevdiğim çay genmaicha».",
        "Not yazılamadı: {why}",
        "Bu salt okunur erişimden kaydetme yapılamaz.",
    ),
}


def replies_for(request: str) -> SaveReplies:
    """The save lines in the language of ``request`` (the user's save request)."""
    return REPLIES[save_language(request)]


def saved_reply(request: str, note: str, words: str, passages: int, transcript: str, updated: bool) -> tuple[str, str]:
    """A written save's reply and its status line. The status says what happened ("Kaydedildi", "Updated"); the
    reply says where and what (the note, ``note`` as a link, the words, the ``passages`` quoted, the transcript)
    and stands alone where a door shows no status (``sentinel ask``). Neither repeats the other: seen in Open
    WebUI, the status "Kaydedildi: notes/…" stood over a reply opening with the same words."""
    replies = replies_for(request)
    holds = (replies.holds_too if updated else replies.holds).format(note=note, words=words.rstrip("."))
    also = f" {counted(replies.rested, passages)}" if passages else ""
    reply = f"{holds}{also}. {replies.recorded.format(transcript=transcript)}"
    return reply, replies.updated if updated else replies.saved
