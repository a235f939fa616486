"""What a person reads around and inside a vault answer: Sentinel's own lines in the question's language, and
quotes that are about the question, kept apart where the page keeps them apart.

Each case is a defect the browser check after stop 45 showed (docs/answers.md, "In the browser after stop 45's
fixes"): English status lines and heading in a Turkish chat, a second quote from an unrelated page, two
paragraphs around a skipped code block read as one line, a saved note's "Record: …" line quoted.
"""

from __future__ import annotations

import json

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.answer.lines import answer_status, lines_in
from sentinel.answer.pipeline import working_line
from sentinel.vault.sentences import sentence_spans
from tests.support.scripted import ChatRequest, ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext

RECOVERY = {
    "tr/Dosya Kurtarma.md": "# Dosya Kurtarma\n\nVarsayılan olarak anlık görüntüler en az 5 dakika arayla "
    "kaydedilir ve 7 gün boyunca saklanır.\n",
    "de/Datenwiederherstellung.md": "# Datenwiederherstellung\n\nStandardmäßig werden Sicherungskopien "
    "mindestens alle 5 Minuten gespeichert und 7 Tage lang aufbewahrt.\n",
}
TR_QUESTION = "Dosya Kurtarma anlık görüntüleri kaç gün saklar?"


def _ask(make_ctx: MakeContext, vault: dict[str, str], *turns: str, model: object = unreachable) -> Answer:
    messages = [{"role": "user", "content": turn} for turn in turns]
    return answer_turn(make_ctx(vault), ScriptedProvider([model]), Turn(messages, chat_id="c"))  # type: ignore[list-item]


def _lines(answer: Answer) -> list[str]:
    return answer.answer.splitlines()


def test_a_turkish_questions_quoted_answer_says_its_own_lines_in_turkish(make_ctx: MakeContext) -> None:
    answer = _ask(make_ctx, RECOVERY, TR_QUESTION)
    assert _lines(answer)[0] == "Kasandan (alıntı):"
    assert "7 gün boyunca saklanır" in answer.answer
    assert answer.as_dict()["status"] == "kasandan alıntılandı"


def test_a_dropped_sentence_is_reported_in_the_questions_language(make_ctx: MakeContext) -> None:
    def liar(_: ChatRequest) -> str:
        return json.dumps({"sentences": [{"text": "Sicherungskopien werden 30 Tage lang aufbewahrt.", "cite": 1}]})

    answer = _ask(make_ctx, RECOVERY, "Wie lange werden die Sicherungskopien aufbewahrt?", model=liar)
    assert answer.dropped == 1 and _lines(answer)[0] == "Aus deinem Vault (wörtlich):"
    assert answer.status_line() == "wörtlich aus deinem Vault; 1 Satz von den Prüfungen weggelassen"


def test_a_written_answers_status_is_in_the_questions_language(make_ctx: MakeContext) -> None:
    def honest(_: ChatRequest) -> str:
        return json.dumps({"sentences": [{"text": "Anlık görüntüler 7 gün boyunca saklanır.", "cite": 1}]})

    answer = _ask(make_ctx, RECOVERY, TR_QUESTION, model=honest)
    assert answer.answered and answer.status_line() == "her cümle kaynağıyla karşılaştırıldı"


def test_a_follow_up_showing_no_language_keeps_the_earlier_questions() -> None:
    turns = [
        {"role": "user", "content": "¿Cuánto tiempo se guarda el historial?"},
        {"role": "user", "content": "Plus?"},
    ]
    assert working_line(Turn(turns)) == "Buscando en tu bóveda…"


@pytest.mark.parametrize(
    ("turn", "line"),
    [
        (TR_QUESTION, "Kasanda aranıyor…"),
        ("Wie lange werden die Sicherungskopien aufbewahrt?", "Durchsuche deinen Vault…"),
        ("¿Con qué nombre crea Obsidian la nota diaria?", "Buscando en tu bóveda…"),
        ("How long are snapshots kept?", "Searching your vault…"),
        ("bunu kaydet", "Kaydediliyor…"),
    ],
)
def test_the_line_shown_while_answering_is_in_the_turns_language(turn: str, line: str) -> None:
    assert working_line(Turn([{"role": "user", "content": turn}])) == line


@pytest.mark.parametrize(
    ("question", "reply", "status"),
    [
        ("¿Cuál es la contraseña del router?", "La bóveda no lo dice.", "bóveda consultada: nada citado, nada escrito"),
        (
            "What is the router's password?",
            "The vault does not say.",
            "searched your vault: nothing quoted, nothing written",
        ),
        (
            "Wie lautet das Passwort des Routers?",
            "Der Vault sagt das nicht.",
            "Vault durchsucht: nichts zitiert, nichts geschrieben",
        ),
        ("Router şifresi nedir?", "Kasa bunu söylemiyor.", "kasada arandı: alıntı yok, yazılan yok"),
    ],
)
def test_the_vault_not_saying_is_said_in_the_questions_language_and_the_status_adds_to_it(
    make_ctx: MakeContext, question: str, reply: str, status: str
) -> None:
    """Seen in the browser (stop 47): the status "La bóveda no lo dice." over the reply "La bóveda no lo dice.
    Ninguna página …": read twice. Before stop 46 it said "quoted from your vault" with nothing quoted."""
    answer = _ask(make_ctx, RECOVERY, question)
    assert answer.answer.startswith(reply)
    assert answer.status_line() == status
    said = [" ".join(s.text.split()).casefold() for s in sentence_spans(answer.answer)]
    assert not any(status.casefold() in sentence or sentence in status.casefold() for sentence in said)


MAP = {
    "notes/I want to try the Canvas.md": "I want to try the Canvas plugin for my project map next week.\n\n"
    "Record: [[2026-12-06-3]]\n",
    "en/Map view.md": "# Map view\n\n## Example\n\n"
    "To start, try creating a note called **Eiffel Tower** and copy the following properties into it:\n\n"
    '```yaml\n---\ncoordinates:\n  - "48.85837"\n---\n```\n\n'
    "Here's what the code above means.\n",
}


def test_a_second_quote_sharing_a_word_only_is_left_out_and_a_record_line_is_never_quoted(
    make_ctx: MakeContext,
) -> None:
    """Row 8: the saved note's sentence, then Map view's "… try creating a note called Eiffel Tower …" (it shares
    "try" and "map"), and the note's own "Record: 2026-12-06-3" line."""
    answer = _ask(make_ctx, MAP, "What did I want to try for my project map?")
    assert [c.path for c in answer.citations] == ["notes/I want to try the Canvas.md"]
    assert "I want to try the Canvas plugin for my project map next week." in answer.answer
    assert "Eiffel" not in answer.answer
    assert "Record" not in answer.answer and "2026-12-06-3" not in answer.citations[0].quote


def test_a_record_line_in_the_saves_own_language_is_never_quoted(make_ctx: MakeContext) -> None:
    """A note saved from a Turkish chat ends "Kayıt: [[…]]" (``vault.record_line``): no quote holds it, whichever
    language the question is asked in."""
    note = "Proje haritam için gelecek hafta Canvas eklentisini denemek istiyorum.\n\nKayıt: [[2026-12-06-3]]\n"
    answer = _ask(make_ctx, {"notes/Canvas eklentisi.md": note}, "Proje haritam için neyi denemek istiyordum?")
    assert [c.path for c in answer.citations] == ["notes/Canvas eklentisi.md"]
    assert "Canvas eklentisini denemek istiyorum." in answer.answer
    assert "Kayıt" not in answer.answer and "2026-12-06-3" not in answer.citations[0].quote


def test_a_second_quote_as_much_about_the_question_stays(make_ctx: MakeContext) -> None:
    """The yield floor of the rule above: a page that holds the question's words as the first does is quoted."""
    vault = {
        "notes/File recovery.md": "# File recovery\n\nFile recovery takes snapshots of your notes every 5 minutes.\n",
        "notes/Sync history.md": "# Sync history\n\nUnlike File recovery, Sync takes snapshots of your notes on "
        "every change.\n",
    }
    answer = _ask(make_ctx, vault, "When does File recovery take snapshots of my notes?")
    assert sorted(c.path for c in answer.citations) == ["notes/File recovery.md", "notes/Sync history.md"]


def test_two_units_with_a_code_block_between_them_are_kept_apart(make_ctx: MakeContext) -> None:
    """Row 8's Map view quote read "… into it: Here's what the code above means:", the code block skipped."""
    answer = _ask(make_ctx, MAP, "Which properties does the Eiffel Tower code above copy into it, and what means?")
    shown = answer.answer
    assert "copy the following properties into it:" in shown and "Here's what the code above means." in shown
    assert not any("into it:" in line and "Here's what" in line for line in _lines(answer)), shown
    assert "into it:\n>\n> Here's what the code above means." in shown  # two paragraphs of one quote


def test_a_footnotes_definition_is_never_quoted(make_ctx: MakeContext) -> None:
    """Row 5: "¹: El ID de la bóveda es …" quoted for "¿Y en qué carpeta?" (it holds "carpeta")."""
    vault = {
        "es/Obsidian URI.md": "# Obsidian URI\n\nAbre la nota diaria de la bóveda con `obsidian://daily`.[^1]\n\n"
        "[^1]: El ID de la bóveda es único por carpeta en tu computadora.\n"
    }
    answer = _ask(make_ctx, vault, "¿En qué carpeta está la nota diaria de la bóveda?")
    assert "Abre la nota diaria" in answer.answer
    assert "[^1]:" not in answer.answer and "único por carpeta" not in answer.answer


@pytest.mark.parametrize(
    ("language", "one", "three"),
    [
        ("en", "; 1 sentence left out by the checks", "; 3 sentences left out by the checks"),
        ("de", "; 1 Satz von den Prüfungen weggelassen", "; 3 Sätze von den Prüfungen weggelassen"),
        ("es", "; 1 frase omitida por las comprobaciones", "; 3 frases omitidas por las comprobaciones"),
        ("tr", "; kontrollerin çıkardığı 1 cümle", "; kontrollerin çıkardığı 3 cümle"),
    ],
)
def test_the_count_of_left_out_sentences_is_worded_for_one_and_for_three(language: str, one: str, three: str) -> None:
    """Seen in Open WebUI after stop 46: "1 Satz/Sätze", "3 frase(s) omitida(s)"."""
    assert answer_status(language, True, 1) == lines_in(language).checked + one
    assert answer_status(language, False, 3) == lines_in(language).quoted + three


def test_a_written_sentence_copying_a_callout_marker_is_shown_without_it(make_ctx: MakeContext) -> None:
    """Seen in the browser check of stop 47 (row 5): the model wrote "> [!tip] Si prefieres …" as it stands in the
    page, the support gate kept it, and Open WebUI showed "[!tip]" raw."""
    tip = "Si prefieres tener tus notas diarias en una carpeta separada, cambia la Ubicación de archivo nuevo."
    vault = {"es/Notas diarias.md": f"# Notas diarias\n\n> [!tip] {tip}\n"}

    def copier(_: ChatRequest) -> str:
        return json.dumps({"sentences": [{"text": f"> [!tip] {tip}", "cite": 1}]})

    answer = _ask(make_ctx, vault, "¿En qué carpeta se crean las notas diarias?", model=copier)
    assert answer.answered and answer.answer == f"{tip} [1]", answer.answer
