"""A follow-up is read with the question it continues (``answer.followup``); a new question is read alone.

Here (tests/tools) so the mutation harness reaches it.
"""

from __future__ import annotations

import json
import logging

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.answer.followup import asked, continues, what_is_asked
from tests.support.scripted import ChatRequest, ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Version history.md": "# Version history\n\nOpen the version history from the file menu to restore an "
    "earlier version of a note, or to compare two versions side by side before you restore one. The version "
    "history of a note is kept for 1 month on the Standard plan and for 12 months on the Plus plan.\n",
    "notes/File size.md": "# File size\n\nOn the Plus plan a file may be up to 200 MB, and on the Standard plan "
    "up to 5 MB.\n",
}
FIRST = "How long is the version history kept?"


def _ask(make_ctx: MakeContext, *user_turns: str, model: object = unreachable) -> Answer:
    messages = []
    for text in user_turns[:-1]:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "(an answer)"}]
    messages.append({"role": "user", "content": user_turns[-1]})
    return answer_turn(make_ctx(VAULT), ScriptedProvider([model]), Turn(messages, chat_id="c"))  # type: ignore[list-item]


@pytest.mark.parametrize(
    "turn",
    [
        "And on the Plus plan?",
        "What about total storage?",
        "How often are they taken?",
        "Und unter macOS?",
        "Was ist mit dem Plus-Tarif?",
        "¿Y en qué carpeta?",
        "¿Qué tal en el plan Plus?",
        "Peki macOS'ta?",
        "Ya Plus planında?",
    ],
)
def test_a_turn_that_continues_is_read_with_the_earlier_question(turn: str) -> None:
    assert continues(turn)
    assert asked([FIRST, turn]).searched == f"{FIRST} {turn}"


@pytest.mark.parametrize(
    "turn",
    [
        "Which shortcut opens the Command palette?",
        "Is there a dark mode?",
        "Gibt es einen dunklen Modus?",
        "Wie lange werden die Sicherungskopien aufbewahrt?",
        "¿Con qué nombre crea Obsidian la nota diaria?",
        "Dosya Kurtarma anlık görüntüleri kaç gün saklar?",
        "What is the largest file I can upload to my Publish site?",
        "Which plugin shows the headings of this note in a sidebar?",  # a pronoun, and a subject of its own
    ],
)
def test_a_new_question_is_read_alone(turn: str) -> None:
    assert asked([FIRST, turn]).searched == turn


# Seen in the browser (stop 51, fourth file, row 2) and its shape in the other languages: a demonstrative and the
# noun it determines point back at the earlier answer's thing, and name it, so neither counts against the
# content words a pointing turn may name (each of these names four or more).
@pytest.mark.parametrize(
    "turn",
    [
        "uygulamayı kapatınca o kayıtlar duruyo mu?",
        "do those logs survive closing the app?",
        "Bleiben diese Protokolle nach dem Schließen der App?",
        "¿Esos registros se conservan al cerrar la aplicación?",
    ],
)
def test_a_turn_pointing_back_with_that_and_a_noun_is_read_with_the_earlier_question(turn: str) -> None:
    assert continues(turn)
    assert asked([FIRST, turn]).searched == f"{FIRST} {turn}"


@pytest.mark.parametrize(
    "turn",
    [
        "Is there a plugin that counts the words in a note?",  # "that" opens a relative clause
        "¿Respaldo mi bóveda con Sync o Git?",  # Spanish "o" is "or", not Turkish "o"
        "Bu notu başka bir klasöre nasıl taşırım?",  # proximal: the note in front of the person
        "How do I pin this command to the top of the palette?",
    ],
)
def test_a_new_question_holding_a_demonstrative_word_is_read_alone(turn: str) -> None:
    assert not continues(turn)
    assert asked([FIRST, turn]).searched == turn


def test_a_follow_up_after_a_save_or_a_greeting_continues_nothing() -> None:
    assert asked(["save this: buy genmaicha", "And on the Plus plan?"]).searched == "And on the Plus plan?"
    assert asked(["hello", "And on the Plus plan?"]).searched == "And on the Plus plan?"


def test_a_follow_up_of_a_follow_up_keeps_the_first_question() -> None:
    assert asked([FIRST, "And on the Plus plan?", "And on Standard?"]).earlier == f"{FIRST} And on the Plus plan?"


def test_the_follow_up_finds_the_earlier_questions_page(make_ctx: MakeContext) -> None:
    alone = _ask(make_ctx, "And on the Plus plan?")
    assert alone.citations[0].path == "notes/File size.md"  # read alone: a plan, and the file size it allows
    answer = _ask(make_ctx, FIRST, "And on the Plus plan?")
    assert answer.citations[0].path == "notes/Version history.md"
    assert "12 months on the Plus plan" in answer.answer


def test_the_model_is_shown_the_earlier_question(make_ctx: MakeContext) -> None:
    seen: list[str] = []

    def model(request: ChatRequest) -> str:
        seen.append(str(request.messages[-1]["content"]))
        return json.dumps({"sentences": []})

    _ask(make_ctx, FIRST, "And on the Plus plan?", model=model)
    assert seen and seen[-1].endswith(
        f"Earlier question: {FIRST}\nQuestion (it continues the earlier one): And on the Plus plan?"
    )
    _ask(make_ctx, FIRST, "What is the largest file on the Plus plan?", model=model)
    assert seen[-1].endswith("\n\nQuestion: What is the largest file on the Plus plan?")


DAILY = {
    "notes/Daily notes.md": "# Daily notes\n\n## Name\n\nObsidian gives each daily note the name of the day: the "
    "daily note is named with today's date in the YYYY-MM-DD format, so the daily note of a day always has the "
    "same name and Obsidian opens it by that name.\n\n## Settings\n\nNew file location: new daily notes are "
    "created in the folder set here. Template file location: the note a new one starts from.\n",
    "notes/Canvas.md": "# Canvas\n\nA canvas is saved as a .canvas file in the JSON Canvas format.\n",
}


def test_a_follow_ups_own_words_choose_the_chunk_of_the_page(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI: "¿Y en qué carpeta?" after the daily note's name got the name's chunk again; the
    folder was in the page's settings, another chunk, and the packet takes one chunk a page."""
    ctx = make_ctx(DAILY)
    first = "What name does Obsidian give the daily note?"
    messages = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": "(an answer)"},
        {"role": "user", "content": "And in which folder?"},
    ]
    answer = answer_turn(ctx, ScriptedProvider([unreachable]), Turn(messages, chat_id="d"))
    assert answer.citations[0].path == "notes/Daily notes.md"
    assert "created in the folder set here" in answer.answer
    asked_alone = answer_turn(ctx, ScriptedProvider([unreachable]), Turn(messages[:1], chat_id="d"))
    assert "YYYY-MM-DD" in asked_alone.answer  # the question itself still gets the name's chunk


def test_a_follow_ups_answer_does_not_open_with_the_sentence_shown_before(
    make_ctx: MakeContext, caplog: pytest.LogCaptureFixture
) -> None:
    """Seen in Open WebUI after stop 46 (rows 5, 11): a follow-up's answer opened with the sentence the turn
    before had already shown; said again, it is left out. When the model wrote nothing else, the vault is
    quoted instead: its sentence that says more (stop 47; stop 46 said the shown sentence again)."""
    before = "The version history of a note is kept for 1 month on the Standard plan."
    new = "It is kept for 12 months on the Plus plan."

    def writes(*texts: str):  # type: ignore[no-untyped-def]
        return lambda _: json.dumps({"sentences": [{"text": t, "cite": 1} for t in texts]})

    messages = [
        {"role": "user", "content": FIRST},
        {"role": "assistant", "content": f"{before} [1]"},
        {"role": "user", "content": "And on the Plus plan?"},
    ]
    ctx = make_ctx(VAULT)
    with caplog.at_level(logging.INFO, logger="sentinel.answer"):
        answer = answer_turn(ctx, ScriptedProvider([writes(before, new)]), Turn(messages, chat_id="c"))
    assert answer.answer == f"{new} [1]"
    left_out = [r.getMessage() for r in caplog.records if r.getMessage().startswith("left out by")]
    assert left_out == [f"left out by already_read: [1] {before}"]
    alone = answer_turn(ctx, ScriptedProvider([writes(before)]), Turn(messages, chat_id="d"))
    assert "12 months on the Plus plan" in alone.answer and alone.answer.startswith("From your vault (quoted):")
    assert alone.dropped == 1


BACKUPS = {
    "notes/Datenwiederherstellung.md": "# Datenwiederherstellung\n\nDie Datenwiederherstellung speichert "
    "Sicherungskopien deiner Notizen. Standardmäßig werden Sicherungskopien mindestens alle 5 Minuten gespeichert "
    "und 7 Tage lang aufbewahrt. Sicherungskopien verbleiben lokal auf jedem Gerät.\n\nDie Sicherungskopien "
    "werden in den globalen Einstellungen außerhalb des Vaults gespeichert.\n",
    "notes/Dateien sichern.md": "# Dateien sichern\n\nDie Verwendung einer externen Festplatte wird oft mit einem "
    "Computer-Backup kombiniert.\n",
}


@pytest.mark.parametrize("turn", ["und wie oft?", "and how often?"])
def test_how_often_asks_about_the_earlier_questions_subject_not_the_word_often(
    make_ctx: MakeContext, turn: str
) -> None:
    """Seen in Open WebUI (stop 49, bench/browser_turns_more.tsv row 5): "und wie oft?" after how long backups
    are kept quoted "… externen Festplatte wird oft … kombiniert": "oft" was read as the follow-up's subject and
    led the packet. It asks how often; the subject is the earlier question's."""
    messages = [
        {"role": "user", "content": "Wie lange hebt Obsidian die Sicherungskopien meiner Notizen auf?"},
        {"role": "assistant", "content": "(an answer)"},
        {"role": "user", "content": turn},
    ]
    answer = answer_turn(make_ctx(BACKUPS), ScriptedProvider([unreachable]), Turn(messages, chat_id="o"))
    assert [c.path for c in answer.citations] == ["notes/Datenwiederherstellung.md"]
    assert "alle 5 Minuten" in answer.answer


SIDEBAR = {
    "notes/Sidebar.md": "# Sidebar\n\nOn desktop the left sidebar holds the ribbon. On mobile the sidebars are "
    "collapsed by default.\n\n## Open hidden sidebars\n\n### Desktop\n\nOn desktop, select the expand icon to open "
    "a collapsed sidebar.\n\n### Mobile\n\nYou can open hidden sidebars in these ways:\n\n- Swipe left or right\n- "
    "Use the toggle commands\n",
}


def test_a_follow_up_gets_the_section_its_words_head_on_a_tie(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI (stop 49, bench/browser_turns_more.tsv row 7): "¿y en el móvil?" after how to open a
    collapsed sidebar on desktop was answered from the page's opening, which names mobile once as the section
    headed "Móvil y tabletas más pequeñas" does: on a tie the section whose headings hold the follow-up's words."""
    messages = [
        {"role": "user", "content": "How do I open a collapsed sidebar on desktop?"},
        {"role": "assistant", "content": "(an answer)"},
        {"role": "user", "content": "And on mobile?"},
    ]
    answer = answer_turn(make_ctx(SIDEBAR), ScriptedProvider([unreachable]), Turn(messages, chat_id="m"))
    assert "Swipe left or right" in answer.answer


def test_how_often_is_not_answered_by_where_backups_are_kept(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI (stop 49, bench/browser_turns_more.tsv row 5, after "oft" stopped leading the packet):
    "und wie oft?" was answered "Die Sicherungskopien werden in den Globalen Einstellungen außerhalb des Vaults
    gespeichert …", true of the right page and saying nothing about how often. How often asks for a number or a
    word saying how often: the sentence is dropped and the page's "alle 5 Minuten" quoted."""
    where = "Die Sicherungskopien werden in den globalen Einstellungen außerhalb des Vaults gespeichert."
    messages = [
        {"role": "user", "content": "Wie lange hebt Obsidian die Sicherungskopien meiner Notizen auf?"},
        {"role": "assistant", "content": "(an answer)"},
        {"role": "user", "content": "und wie oft?"},
    ]
    writes = ScriptedProvider([lambda _: json.dumps({"sentences": [{"text": where, "cite": 1}]})])
    answer = answer_turn(make_ctx(BACKUPS), writes, Turn(messages, chat_id="w"))
    assert "alle 5 Minuten" in answer.answer and where not in answer.answer, answer.answer
    assert answer.dropped == 1


def test_how_often_after_an_answer_that_said_it_says_it_was_said(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI (stop 49, row 5): the answer before had shown "alle 5 Minuten"; "und wie oft?" then quoted
    the page's unread "Sicherungskopien … verbleiben lokal auf jedem Gerät". A sentence giving no number answers
    no number question: the one that does is quoted under the line saying the answer above said it."""
    shown = "Standardmäßig werden Sicherungskopien mindestens alle 5 Minuten gespeichert und 7 Tage lang aufbewahrt."
    messages = [
        {"role": "user", "content": "Wie lange hebt Obsidian die Sicherungskopien meiner Notizen auf?"},
        {"role": "assistant", "content": f"{shown} [1]"},
        {"role": "user", "content": "und wie oft?"},
    ]
    answer = answer_turn(make_ctx(BACKUPS), ScriptedProvider([unreachable]), Turn(messages, chat_id="s"))
    assert answer.answer.startswith("Wie die Antwort oben sagt (wörtlich):"), answer.answer
    assert "alle 5 Minuten" in answer.answer and "jedem Gerät" not in answer.answer


@pytest.mark.parametrize(
    ("turn", "asks_itself"),
    [
        ("und Supporter?", False),
        ("And on Sync Standard?", False),
        ("¿Y el nivel Patron?", False),
        ("Peki Sync Plus?", False),
        ("und wie oft?", True),
        ("¿Y en qué carpeta?", True),
        ("Peki ne sıklıkla kaydedilir?", True),
        ("And where are they kept?", True),
    ],
)
def test_a_follow_up_without_a_question_word_asks_what_its_question_asked(turn: str, asks_itself: bool) -> None:
    question = f"How much does Sync Plus cost? {turn}"
    assert what_is_asked(question, turn) == (turn if asks_itself else question)


@pytest.mark.parametrize(
    ("turn", "asks_itself"),
    [
        ("And is it encrypted?", True),
        ("und ist das verschlüsselt?", True),
        ("und läuft das auch offline?", True),
        ("¿y se cifra?", True),
        ("¿y funciona sin conexión?", True),
        ("peki şifreli mi?", True),
        ("And if I cancel?", True),
        ("What about total storage?", False),
        ("Was ist mit dem Plus-Tarif?", False),
        ("¿Qué tal en el plan Plus?", False),
        ("und bei Sync Plus?", False),
        ("Und unter macOS?", False),
        ("¿y para equipos?", False),
    ],
)
def test_a_follow_up_naming_a_predicate_of_its_own_asks_it(turn: str, asks_itself: bool) -> None:
    """Past the words it opens with ("and", "what about"), a follow-up that names a predicate (a yes-no question's
    verb) asks that; one naming only a thing asks what its question asked."""
    question = f"How much does Sync Plus cost? {turn}"
    assert what_is_asked(question, turn) == (turn if asks_itself else question)


SYNC_PAGES = {
    "en": (
        "How much does Obsidian Sync cost?",
        "And is it encrypted?",
        "Obsidian Sync costs $4 a month.",
        "Obsidian Sync encrypts your notes end to end before they leave your device.",
    ),
    "de": (
        "Was kostet Obsidian Sync?",
        "und ist das verschlüsselt?",
        "Obsidian Sync kostet 4 $ im Monat.",
        "Obsidian Sync verschlüsselt deine Notizen Ende-zu-Ende, bevor sie dein Gerät verlassen.",
    ),
    "es": (
        "¿Cuánto cuesta Obsidian Sync?",
        "¿y se cifra?",
        "Obsidian Sync cuesta 4 $ al mes.",
        "Obsidian Sync cifra tus notas de extremo a extremo antes de que salgan de tu dispositivo.",
    ),
    "tr": (
        "Obsidian Sync ne kadar tutar?",
        "peki şifreli mi?",
        "Obsidian Sync aylık 4 $ tutar.",
        "Obsidian Sync notlarını cihazından çıkmadan önce uçtan uca şifreli tutar.",
    ),
}


@pytest.mark.parametrize("language", sorted(SYNC_PAGES))
def test_a_yes_no_follow_up_after_a_price_question_keeps_its_yes(make_ctx: MakeContext, language: str) -> None:
    """ "How much does Sync cost?", then "And is it encrypted?": read as the price question's, the follow-up asked
    for an amount, and the model's right sentence (the passage's own, no number in it) was dropped by the
    quantity gate for giving none; the answer quoted the price instead."""
    first, turn, price, encrypts = SYNC_PAGES[language]
    vault = {f"{language}/Obsidian Sync.md": f"# Obsidian Sync\n\n{price} {encrypts}\n"}
    messages = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": f"{price} [1]"},
        {"role": "user", "content": turn},
    ]
    writes = ScriptedProvider([lambda _: json.dumps({"sentences": [{"text": encrypts, "cite": 1}]})])
    answer = answer_turn(make_ctx(vault), writes, Turn(messages, chat_id="y"))
    assert answer.answered and answer.dropped == 0, (answer.answer, answer.notes)
    assert answer.answer.startswith(encrypts), answer.answer


# The eval vault's tr/Eklentiler/Ara.md (its operator table's last rows, cells unpadded) and a File recovery
# sentence holding "hangi" (tr/Eklentiler/Dosya Kurtarma.md)
SEARCH_OPERATORS = {
    "tr/Eklentiler/Ara.md": "# Ara\n\n## Arama operatörleri\n\n"
    "Arama operatörleri, arama teriminizi daraltmanıza yardımcı olur.\n\n"
    "| Arama operatörü | Açıklama |\n| --- | --- |\n"
    "| `task:` | Bir görevde blok bazında eşleşmeleri bul. |\n"
    "| `task-todo:` | *Tamamlanmamış* bir görevde blok bazında eşleşmeleri bul. |\n"
    "| `task-done:` | *Tamamlanmış* bir görevde blok bazında eşleşmeleri bul. |\n",
    "tr/Eklentiler/Dosya Kurtarma.md": "# Dosya Kurtarma\n\n## Bir anlık görüntüyü kurtarma\n\n"
    "İsteğe bağlı olarak Farkı göster seçeneğini açarak anlık görüntüler arasındaki farkları görebilirsiniz. Bu, "
    "anlık görüntü sürümleri arasında hangi içeriğin eklendiğini, kaldırıldığını veya değiştirildiğini gösterir.\n",
}


def test_a_follow_ups_question_word_leads_to_no_page(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI (bench/browser_turns_eighth.tsv row 2): "peki bitirdiklerim icin hangisi?" after a question
    about the search operators quoted File recovery's steps: "hangisi" (which one) and "hangi" share their first
    letters, so the page holding "hangi" led the packet. A question word asks and names nothing."""
    first = "tamamlanmamış görevlerin icinde arama yapcam, hangi arama operatörünü yazmam lazim?"
    messages = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": "(an answer)"},
        {"role": "user", "content": "peki bitirdiklerim icin hangisi?"},
    ]
    answer = answer_turn(make_ctx(SEARCH_OPERATORS), ScriptedProvider([unreachable]), Turn(messages, chat_id="h"))
    assert answer.citations[0].path == "tr/Eklentiler/Ara.md", answer.answer
