""" "Save this" after an answer: the note keeps the user's question and what the answer rested on in the vault's
own words (each cited passage's sentences, quoted, under a link to its page), never the model's sentences; the
reply speaks the request's language.

Here (tests/tools) so the mutation harness reaches it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.answer.lines import counted
from sentinel.answer.save_replies import REPLIES
from sentinel.tools.context import ToolContext
from tests.support.scripted import ChatRequest, ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Sync.md": "# Sync\n\nThe version history depends on your [[Plans and storage limits|Sync plan]]. "
    "On the Plus plan notes are kept for 12 months.\n",
    "notes/Plans and storage limits.md": "# Plans and storage limits\n\nTwo plans: Standard and Plus.\n",
}
QUESTION = "How long does the Plus plan keep the version history?"
# Supported by the passage (the gate keeps it) but in the model's own words: it must never reach the note.
MODELS_SENTENCE = "On the Plus plan the version history is kept for 12 months."


def _written(_: ChatRequest) -> str:
    return json.dumps({"sentences": [{"text": MODELS_SENTENCE, "cite": 1}]})


def _chat(ctx: ToolContext, *turns: str, model: Any = None, chat_id: str = "chat-1") -> tuple[list[Answer], str]:
    """Each user turn answered in one chat (the door sends the conversation so far); the answers and the note."""
    messages: list[dict[str, str]] = []
    answers = []
    for text in turns:
        messages.append({"role": "user", "content": text})
        answer = answer_turn(ctx, ScriptedProvider([model or unreachable]), Turn(list(messages), chat_id=chat_id))
        answers.append(answer)
        messages.append({"role": "assistant", "content": answer.answer})
    saved = answers[-1].saved
    return answers, (ctx.settings.vault / saved).read_text(encoding="utf-8") if saved else ""


def test_save_after_a_written_answer_keeps_the_question_and_the_passage_not_the_models_words(
    make_ctx: MakeContext,
) -> None:
    answers, note = _chat(make_ctx(VAULT), QUESTION, "bunu kaydet", model=_written)
    assert answers[0].answered and answers[0].answer.startswith(MODELS_SENTENCE)
    assert note.startswith(QUESTION + "\n\n> [!quote] [[notes/Sync#Sync|Sync]]\n> ")
    assert "On the Plus plan notes are kept for 12 months." in note
    assert MODELS_SENTENCE not in note
    # The page's link shown as the page shows it: the note links only to the page it quotes.
    assert "depends on your Sync plan." in note and "[[Plans and storage limits" not in note
    assert "Kayıt: [[" in note  # the transcript link stays, labelled in the save's language (a Turkish save)


def test_save_after_an_extractive_answer_keeps_the_quotes_it_showed(make_ctx: MakeContext) -> None:
    answers, note = _chat(make_ctx(VAULT), QUESTION, "save this")
    assert not answers[0].answered
    assert "> [!quote] [[notes/Sync#Sync|Sync]]" in note and "On the Plus plan notes are kept for 12 months." in note
    shown = len(answers[0].citations)  # the plans page shares only "Plus plan": not quoted (pipeline._extractive)
    assert shown == 1 and f"and {shown} passage the answer rested on" in answers[1].answer  # the quotes it showed


def test_an_answer_not_recorded_gives_the_question_alone(make_ctx: MakeContext) -> None:
    """An assistant message Sentinel did not give (edited, or from before the record) has no known sources."""
    ctx = make_ctx(VAULT)
    messages = [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": "Twelve months, I think."},
        {"role": "user", "content": "save this"},
    ]
    answer = answer_turn(ctx, ScriptedProvider([]), Turn(messages, chat_id="chat-2"))
    note = (ctx.settings.vault / answer.saved).read_text(encoding="utf-8")
    assert note.startswith(QUESTION + "\n\nRecord: [[")
    assert "[!quote]" not in note and "Twelve" not in note


def test_save_with_its_own_words_keeps_those_alone(make_ctx: MakeContext) -> None:
    _, note = _chat(make_ctx(VAULT), QUESTION, "save this: ask about the Plus plan price")
    assert note.startswith("ask about the Plus plan price\n\nRecord: [[")


@pytest.mark.parametrize(
    ("request_words", "reply_says"),
    [
        ("bunu kaydet", "Sözlerin [notes/"),
        ("speichere das", ") enthält deine Worte: “"),
        ("guarda esto", ") guarda tus palabras: “"),
        ("save this", ") holds your words: “"),
    ],
)
def test_the_save_reply_speaks_the_requests_language(
    make_ctx: MakeContext, request_words: str, reply_says: str
) -> None:
    answers, _ = _chat(make_ctx(VAULT), QUESTION, request_words)
    assert answers[1].intent == "save"
    assert reply_says in answers[1].answer


@pytest.mark.parametrize(
    ("request_words", "status", "not_saved", "read_only", "nothing_yet"),
    [
        ("bunu kaydet", "Kaydedildi", "Kaydedilmedi", "salt okunur", "Henüz kaydedilecek"),
        ("speichere das", "Gespeichert", "Nicht gespeichert", "nur lesenden", "Es gibt noch nichts"),
        ("guarda esto", "Guardado", "No guardado", "solo lectura", "Todavía no hay nada"),
        ("save this", "Saved", "Not saved", "read-only", "There is nothing to save"),
    ],
)
def test_every_line_of_a_save_speaks_the_requests_language(
    make_ctx: MakeContext, request_words: str, status: str, not_saved: str, read_only: str, nothing_yet: str
) -> None:
    """Seen in Open WebUI: a Turkish save answered in Turkish under an English status line ("Saved notes/…")."""
    ctx = make_ctx(VAULT)
    answers, _ = _chat(ctx, QUESTION, request_words)
    assert answers[1].as_dict()["status"] == status
    alone = answer_turn(ctx, ScriptedProvider([]), Turn([{"role": "user", "content": request_words}], chat_id="c3"))
    assert alone.answer.startswith(nothing_yet) and alone.as_dict()["status"] == not_saved
    asked = [{"role": "user", "content": f"{request_words}: the spare key is in the shed"}]
    refused = answer_turn(ctx, ScriptedProvider([]), Turn(asked, chat_id="c4", can_write=False))
    assert read_only in refused.answer and not refused.saved and refused.as_dict()["status"] == not_saved


def _as_read(markdown: str) -> str:
    """What a person reads of a reply: links drawn as their text, spacing and case folded."""
    return " ".join(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown).split()).casefold()


@pytest.mark.parametrize("request_words", ["bunu kaydet", "speichere das", "guarda esto", "save this"])
def test_no_save_says_its_status_line_again_in_its_reply(make_ctx: MakeContext, request_words: str) -> None:
    """Seen in Open WebUI (stops 45 and 46, rows 3, 6, 9): the status "Kaydedildi: notes/…" over a reply opening
    "Kaydedildi: notes/…": the person read it twice. Every outcome of a save: written, added to, nothing to keep,
    a refused write, a read-only door; the status says what happened, the reply the rest."""
    ctx = make_ctx(VAULT)
    messages = [{"role": "user", "content": f"{request_words}: the spare key is in the shed"}]
    outcomes = [answer_turn(ctx, ScriptedProvider([]), Turn(messages, chat_id="c1")) for _ in range(2)]
    assert outcomes[0].saved and outcomes[1].saved == outcomes[0].saved  # written, then added to
    assert outcomes[0].status != outcomes[1].status
    alone = [{"role": "user", "content": request_words}]
    outcomes.append(answer_turn(ctx, ScriptedProvider([]), Turn(alone, chat_id="c2")))
    outcomes.append(answer_turn(ctx, ScriptedProvider([]), Turn(messages, chat_id="c3", can_write=False)))
    ctx.settings.max_page_bytes = 10  # the transcript will not fit: the write is refused
    outcomes.append(answer_turn(ctx, ScriptedProvider([]), Turn(messages, chat_id="c4")))
    assert not outcomes[-1].saved and "max_page_bytes" in outcomes[-1].answer
    for outcome in outcomes:
        status = outcome.as_dict()["status"]
        assert isinstance(status, str) and status
        assert " ".join(status.split()).casefold() not in _as_read(outcome.answer), (status, outcome.answer)


@pytest.mark.parametrize(
    ("request_words", "label"),
    [
        ("bunu kaydet", "Kayıt:"),
        ("speichere das", "Protokoll:"),
        ("guarda esto", "Registro:"),
        ("save this", "Record:"),
    ],
)
def test_the_record_line_is_labelled_in_the_saves_language(
    make_ctx: MakeContext, request_words: str, label: str
) -> None:
    """Seen in Open WebUI after stop 46: the Turkish and Spanish notes ended "Record: [[2026-12-06-1]]"."""
    _, note = _chat(make_ctx(VAULT), f"{request_words}: the spare key is in the shed")
    assert re.search(rf"\n\n{re.escape(label)} \[\[\d{{4}}-\d\d-\d\d-1\]\]\n$", note), note


def test_a_record_label_the_person_set_wins_over_the_saves_language(make_ctx: MakeContext) -> None:
    _, note = _chat(make_ctx(VAULT, record_label="Record:"), "bunu kaydet: yedek anahtar kulübede")
    assert "\n\nRecord: [[" in note and "Kayıt" not in note


def test_save_after_a_follow_up_keeps_the_question_it_continues(make_ctx: MakeContext) -> None:
    _, note = _chat(make_ctx(VAULT), "How long is the version history kept?", "And on the Plus plan?", "save this")
    assert note.startswith("How long is the version history kept? And on the Plus plan?\n\n> [!quote]")


def test_a_passage_the_page_quoted_is_quoted_once(make_ctx: MakeContext) -> None:
    """Seen in the Turkish note: the page's "> Varsayılan olarak …" became "> > Varsayılan …" in the callout."""
    vault = {"notes/Recovery.md": "# Recovery\n\n> By default snapshots are kept for 7 days.\n"}
    _, note = _chat(make_ctx(vault), "How long are snapshots kept?", "save this")
    assert "> [!quote] [[notes/Recovery#Recovery|Recovery]]\n> By default snapshots are kept for 7 days." in note


@pytest.mark.parametrize(
    ("language", "one", "three"),
    [
        ("en", "and 1 passage the answer rested on, quoted with its page", "and 3 passages the answer rested on"),
        ("de", "und 1 Passage, auf die sich die Antwort stützte, wörtlich mit ihrer Seite", "und 3 Passagen, auf"),
        ("es", "y 1 pasaje en que se basó la respuesta, citado con su página", "y 3 pasajes en que se basó"),
        ("tr", "ve yanıtın dayandığı 1 pasaj, sayfasıyla", "ve yanıtın dayandığı 3 pasaj, sayfalarıyla"),
    ],
)
def test_the_count_of_passages_a_save_kept_is_worded_for_one_and_for_three(language: str, one: str, three: str) -> None:
    """Seen in Open WebUI after stop 46: "1 pasaje(s)"."""
    rested = REPLIES[language].rested
    assert counted(rested, 1).startswith(one) and "(" not in counted(rested, 1)
    assert counted(rested, 3).startswith(three) and "(" not in counted(rested, 3)
