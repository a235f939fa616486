"""A sentence giving the number asked for is kept only when the passage's sentence it rests on is about the
question's subject (gates/subject.py), not about a sibling the passage gives a number for too.

Seen in the browser (bench/browser_turns.tsv row 10, with 933ef2d): for how long the version history of notes is
kept, the model's kept sentence was the FAQ's "Older versions of attachments are stored for two weeks". Here so
the mutation harness reaches it. The pages are the eval vault's, verbatim sections.
"""

from __future__ import annotations

import logging

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.gates.subject import about_the_subject, off_subject
from sentinel.gates.support import CitedSentence, Evidence
from tests.support.scripted import ScriptedProvider, cited_sentences
from tests.support.tool_context import MakeContext

# en/Obsidian Sync/Frequently asked questions.md, its "Data retention" section
FAQ = (
    "# Frequently asked questions\n\n## Data retention\n\n"
    "These are commonly asked questions on Obsidian's data retention. For more in depth answers, see "
    "[[Obsidian Sync/Security and privacy|Security and privacy]].\n\n"
    "### How long do you keep the version history?\n\n"
    "[[Version history]] depends on your [[Plans and storage limits|Obsidian Sync plan]]. On the Standard plan your "
    "notes are retained for 1 month. On the Plus plan your notes are retained for 12 months. After this period of "
    "time the older versions are deleted.\n\n"
    "Older versions of [[Attachments|attachments]] are stored for two weeks.\n"
)
QUESTION = "How long does Obsidian Sync keep the version history of my notes?"
ATTACHMENTS = "Older versions of attachments are stored for two weeks."
NOTES = "On the Standard plan your notes are retained for 1 month."


def _ask(make_ctx: MakeContext, *written: str) -> Answer:
    turn = Turn([{"role": "user", "content": QUESTION}], chat_id="q")
    ctx = make_ctx({"en/Obsidian Sync/Frequently asked questions.md": FAQ})
    return answer_turn(ctx, ScriptedProvider([cited_sentences(*written)]), turn)


def test_a_sentence_about_a_sibling_subject_is_dropped_and_the_subject_quoted(
    make_ctx: MakeContext, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="sentinel.answer"):
        answer = _ask(make_ctx, ATTACHMENTS)
    assert not answer.answered and answer.dropped == 1, answer.answer  # support and quantity alone kept it
    assert "retained for 1 month" in answer.answer and "two weeks" not in answer.answer, answer.answer
    left_out = [r.getMessage() for r in caplog.records if r.getMessage().startswith("left out by")]
    assert left_out == [f"left out by gates.subject: [1] {ATTACHMENTS}"]


def test_a_sentence_about_the_subject_is_kept(make_ctx: MakeContext) -> None:
    answer = _ask(make_ctx, NOTES)
    assert answer.answered and answer.answer == f"{NOTES} [1]"


def test_of_two_sentences_the_one_about_the_subject_is_kept(make_ctx: MakeContext) -> None:
    plus = "On the Plus plan your notes are retained for 12 months."
    answer = _ask(make_ctx, NOTES, ATTACHMENTS, plus)
    assert answer.answered and answer.answer == f"{NOTES} [1] {plus} [1]", answer.answer
    assert answer.dropped == 1


# de/Obsidian Sync/Versionsgeschichte.md and es/Obsidian Sync/Preguntas frecuentes.md, verbatim paragraphs
GERMAN = Evidence(
    1,
    "Die Aufbewahrungsdauer deines Versionsverlaufs hängt von deinem [[Tarife und Speicherlimits|Obsidian "
    "Sync-Tarif]] ab. Beim Standard-Tarif werden Notizen 1 Monat lang aufbewahrt, beim Plus-Tarif 12 Monate. "
    "Nach Ablauf dieses Zeitraums werden ältere Versionen deiner Notizen gelöscht.\n\n"
    "Für [[Anhänge]] werden ältere Versionen <u>zwei Wochen</u> lang gespeichert.",
    "Versionsgeschichte",
    "Versionsgeschichte > Versionsverlauf",
)
SPANISH = Evidence(
    1,
    "El [[Historial de versiones]] depende de tu [[Planes y límites de almacenamiento|plan de Obsidian Sync]]. "
    "En el plan Estándar, tus notas se conservan durante 1 mes. En el plan Plus, tus notas se conservan durante "
    "12 meses. Después de este período, las versiones más antiguas se eliminan.\n\n"
    "Las versiones anteriores de los [[Archivos adjuntos|adjuntos]] se almacenan durante dos semanas.",
    "Preguntas frecuentes",
    "Preguntas frecuentes > Retención de datos > ¿Durante cuánto tiempo conservan el historial de versiones?",
)


@pytest.mark.parametrize(
    ("evidence", "question", "sentence", "off"),
    [
        (
            GERMAN,
            "Wie lange bewahrt Obsidian Sync den Versionsverlauf meiner Notizen auf?",
            "Ältere Versionen von Anhängen werden zwei Wochen lang gespeichert.",
            True,
        ),
        (
            GERMAN,
            "Wie lange bewahrt Obsidian Sync den Versionsverlauf meiner Notizen auf?",
            "Beim Standard-Tarif werden Notizen 1 Monat lang aufbewahrt.",
            False,
        ),
        (
            SPANISH,
            "¿Durante cuánto tiempo guarda Obsidian Sync el historial de versiones de mis notas?",
            "Las versiones anteriores de los adjuntos se almacenan durante dos semanas.",
            True,
        ),
        (
            SPANISH,
            "¿Durante cuánto tiempo guarda Obsidian Sync el historial de versiones de mis notas?",
            "En el plan Plus, tus notas se conservan durante 12 meses.",
            False,
        ),
        # the question names neither sibling: a tie, both kept
        (SPANISH, "¿Durante cuánto tiempo se conserva el historial?", "Los adjuntos se guardan dos semanas.", False),
        # the question names the sibling: it is the subject
        (GERMAN, "Wie lange werden Anhänge aufbewahrt?", "Anhänge werden zwei Wochen lang gespeichert.", False),
        # its verb is in the notes' sentence ("aufbewahrt"), its noun in the attachments': a tie, kept
        (GERMAN, "Wie lange werden Anhänge aufbewahrt?", "Notizen werden 1 Monat lang aufbewahrt.", False),
        (SPANISH, "¿Cuánto tiempo se guardan los adjuntos?", "Tus notas se conservan durante 1 mes.", True),
    ],
)
def test_a_sentence_resting_on_a_sibling_is_off_subject(
    evidence: Evidence, question: str, sentence: str, off: bool
) -> None:
    assert off_subject(CitedSentence(sentence, 1), evidence, question, question) is off


def test_a_question_asking_for_no_number_passes_whole() -> None:
    sentence = CitedSentence("Ältere Versionen von Anhängen werden zwei Wochen lang gespeichert.", 1)
    verdict = about_the_subject([sentence], {1: GERMAN}, "Was passiert mit Notizen?", "Was passiert mit Notizen?")
    assert verdict.passed and verdict.kept == [sentence]
