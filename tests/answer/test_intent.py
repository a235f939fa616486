"""Intent by code, in the four languages, with the near misses that must stay questions."""

from __future__ import annotations

import pytest

from sentinel.answer.intent import Intent, TurnIntent, by_code, with_second_opinion


@pytest.mark.parametrize(
    "text",
    [
        "Save this: my favourite tea is genmaicha.",
        "save this",
        "Please note this: the meeting moved to Friday.",
        "Can you save this?",
        "Remember that the router password changes every 90 days.",
        "Speichere das: Mein Lieblingstee ist Genmaicha.",
        "Kannst du das speichern?",
        "Merk dir: der Schlüssel liegt im Flur.",
        "Guarda esto: mi té favorito es el genmaicha.",
        "¿Puedes guardar esto?",
        "Anota: la reunión es el viernes.",
        "Kaydet: en sevdiğim çay genmaicha.",
        "Bunu kaydet",
        "Şunu not al: toplantı cuma günü.",
        "bunu kaydeder misin?",
    ],
)
def test_requests_to_keep_something_are_saves(text: str) -> None:
    assert by_code(text).intent is Intent.SAVE


@pytest.mark.parametrize(
    "text",
    [
        "How do I save a note in Obsidian?",
        "Where are saved notes stored?",
        "What does the save command do?",
        "Wie speichere ich eine Notiz?",
        "¿Cómo guardo una nota en Obsidian?",
        "Notları nasıl kaydederim?",
        "Is my note saved automatically?",
        "What did I note about the router?",
        "the notes folder",
    ],
)
def test_questions_about_saving_are_vault_questions(text: str) -> None:
    assert by_code(text).intent is Intent.VAULT


def test_the_words_to_keep_are_the_users_own() -> None:
    assert by_code("Save this: my favourite tea is genmaicha.").subject == "my favourite tea is genmaicha."
    assert by_code("Kaydet: en sevdiğim çay genmaicha").subject == "en sevdiğim çay genmaicha"


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("What links to Canvas?", "Canvas"),
        ("what links to [[Obsidian Sync]]", "Obsidian Sync"),
        ("Which pages point to 'Daily notes'?", "Daily notes"),
        ("What is Bases connected to?", "Bases"),
        ("Was ist mit „Canvas“ verbunden?", "Canvas"),
        ("¿Qué enlaza a 'Canvas'?", "Canvas"),
        ("'Canvas' sayfasına hangi bağlantılar var?", "Canvas"),
    ],
)
def test_link_questions_name_their_subject(text: str, subject: str) -> None:
    found = by_code(text)
    assert found.intent is Intent.LINK
    assert found.subject == subject


@pytest.mark.parametrize(
    "text", ["Look up the Obsidian release notes online", "Search the web for genmaicha", "internette ara: çay"]
)
def test_research_only_when_the_words_name_the_web(text: str) -> None:
    assert by_code(text).intent is Intent.RESEARCH


@pytest.mark.parametrize(
    "text",
    [
        "What is genmaicha?",
        "Research says what about tea?",
        "find my notes on tea",
        "What does the Web Clipper keep of a page?",  # names the web, asks about the vault
        "Welche Webseiten habe ich mir notiert?",
        "¿Qué guardé sobre el internet de las cosas?",
    ],
)
def test_no_web_words_no_research(text: str) -> None:
    assert by_code(text).intent is not Intent.RESEARCH


@pytest.mark.parametrize("text", ["hi", "Hello!", "thanks", "Danke!", "Hola", "Merhaba", "teşekkürler"])
def test_greetings_are_small_talk(text: str) -> None:
    assert by_code(text).intent is Intent.SMALL_TALK


def test_the_models_label_can_only_turn_a_vault_question_into_small_talk() -> None:
    vault = TurnIntent(Intent.VAULT, "code")
    assert with_second_opinion(vault, "small_talk").intent is Intent.SMALL_TALK
    for label in ("save", "research", "link", None, "nonsense"):
        assert with_second_opinion(vault, label) == vault
    save = TurnIntent(Intent.SAVE, "code", "x")
    assert with_second_opinion(save, "small_talk") == save
