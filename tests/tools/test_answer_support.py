"""The support gate (``gates.support``) on its own and inside the answer pipeline, against scripted liars.

Here (tests/tools) so the mutation harness reaches it: with ``supported_sentences`` removed, the liars' sentences
ship and these tests fail.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from sentinel.answer import Turn, answer_turn
from sentinel.gates import support
from sentinel.gates.support import CitedSentence, Evidence
from sentinel.providers.base import ProviderUnavailable
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Tea.md": "# Tea\n\nGenmaicha is a Japanese green tea mixed with roasted brown rice. It is brewed at 80 "
    "degrees for three minutes.\n",
    "notes/Router.md": "# Router\n\nThe home router stands in the hallway cupboard. The wifi password changes every "
    "90 days and is kept in the password manager.\n",
}
TEA = Evidence(1, VAULT["notes/Tea.md"].split("\n\n", 1)[1], "Tea", "Tea")
ROUTER = Evidence(2, VAULT["notes/Router.md"].split("\n\n", 1)[1], "Router", "Router")


def _verdict(text: str, cite: int) -> bool:
    return support.supported_sentences([CitedSentence(text, cite)], {1: TEA, 2: ROUTER}).passed


@pytest.mark.parametrize(
    ("text", "cite"),
    [
        ("Genmaicha is green tea mixed with roasted brown rice.", 1),
        ("It is brewed at 80 degrees.", 1),
        ("The wifi password changes every 90 days.", 2),
        ("The router stands in the hallway cupboard.", 2),
    ],
)
def test_a_sentence_its_passage_says_is_kept(text: str, cite: int) -> None:
    assert _verdict(text, cite)


@pytest.mark.parametrize(
    ("text", "cite", "why"),
    [
        ("Genmaicha is brewed at 95 degrees.", 1, "a number the passage does not give"),
        ("The wifi password changes every 30 days.", 2, "a number the passage does not give"),
        ("Genmaicha is green tea mixed with roasted brown rice.", 2, "cites the wrong passage"),
        ("Paris is the capital of France and has the Eiffel tower.", 1, "the model's own knowledge"),
        ("Genmaicha is green tea mixed with roasted brown rice.", 7, "a passage the packet does not have"),
        ("Yes.", 1, "nothing checkable"),
    ],
)
def test_a_sentence_its_passage_does_not_say_is_dropped(text: str, cite: int, why: str) -> None:
    assert not _verdict(text, cite), why


def test_inflected_forms_count_as_the_word_in_turkish_and_german() -> None:
    tr = Evidence(1, "Konuşma kayıtları conversations klasöründe saklanır ve model bu kayıtları değiştiremez.")
    de = Evidence(2, "Der Ordner conversations enthält die wörtlichen Mitschriften der Gespräche.")
    kept = support.supported_sentences(
        [
            CitedSentence("Konuşma kayıtları conversations klasöründe saklanır.", 1),
            CitedSentence("Der Ordner conversations enthält wörtliche Mitschriften.", 2),
        ],
        {1: tr, 2: de},
    )
    assert kept.passed, kept.reason


def _number_of(request: ChatRequest, title: str) -> int:
    packet = str(request.messages[-1]["content"])
    found = re.search(rf"^\[(\d+)\] {re.escape(title)}\b", packet, re.MULTILINE)
    assert found, f"{title} is not in the packet:\n{packet}"
    return int(found.group(1))


def _reply(*sentences: tuple[str, str]):  # type: ignore[no-untyped-def]
    """A scripted model writing ``sentences``, each citing the passage of the page titled as given."""

    def write(request: ChatRequest) -> str:
        return json.dumps(
            {"sentences": [{"text": text, "cite": _number_of(request, title)} for text, title in sentences]}
        )

    return write


def _ask(make_ctx: MakeContext, provider: ScriptedProvider, question: str):  # type: ignore[no-untyped-def]
    ctx = make_ctx(VAULT)
    return answer_turn(ctx, provider, Turn([{"role": "user", "content": question}], chat_id="t1"), model="scripted")


def test_an_honest_model_answers_with_its_citation(make_ctx: MakeContext) -> None:
    provider = ScriptedProvider([_reply(("Genmaicha is brewed at 80 degrees for three minutes.", "Tea"))])
    answer = _ask(make_ctx, provider, "How long is genmaicha brewed?")
    assert answer.answered and answer.dropped == 0
    assert answer.answer == "Genmaicha is brewed at 80 degrees for three minutes. [1]"
    assert [c.path for c in answer.citations] == ["notes/Tea.md"]
    assert answer.citations[0].url.startswith("obsidian://open?vault=vault&file=notes%2FTea")


@pytest.mark.parametrize(
    "liar",
    [
        _reply(("Genmaicha is brewed at 95 degrees for three minutes.", "Tea")),  # adds a number
        _reply(("Genmaicha is brewed at 80 degrees for three minutes.", "Router")),  # cites the wrong passage
        _reply(("Genmaicha is best brewed with boiling water in a teapot made of clay.", "Tea")),  # own knowledge
    ],
    ids=["adds-a-number", "cites-the-wrong-passage", "own-knowledge"],
)
def test_a_liars_sentences_are_dropped_and_the_vault_is_quoted(make_ctx: MakeContext, liar: object) -> None:
    provider = ScriptedProvider([liar])  # type: ignore[list-item]
    # names the router too: the model reads only passages that share a word with the question (packet.admitted)
    answer = _ask(make_ctx, provider, "How long is genmaicha brewed, and is that the router's password?")
    assert not answer.answered
    assert answer.dropped == 1
    assert answer.answer.startswith("From your vault (quoted):")
    assert "It is brewed at 80 degrees for three minutes." in answer.answer
    assert "95" not in answer.answer and "clay" not in answer.answer
    assert any("dropped" in note for note in answer.notes)


def test_a_mixed_reply_keeps_only_what_is_supported(make_ctx: MakeContext) -> None:
    provider = ScriptedProvider(
        [
            _reply(
                ("Genmaicha is green tea mixed with roasted brown rice.", "Tea"),
                ("It should be drunk every morning for good health.", "Tea"),
            )
        ]
    )
    answer = _ask(make_ctx, provider, "What is genmaicha?")
    assert answer.answered and answer.dropped == 1
    assert "health" not in answer.answer


def _cut(write, keep_chars: int = 30):  # type: ignore[no-untyped-def]
    """``write``'s reply cut off inside its last sentence, as when the model runs out of reply tokens."""
    return lambda request: (reply := write(request))[: reply.rindex('{"text"') + keep_chars]


def test_a_reply_cut_off_in_its_last_sentence_keeps_the_whole_ones_before_it(make_ctx: MakeContext) -> None:
    """Seen on bench/answers.py tr03 (stop 48): two whole sentences giving "Ctrl+P", the third cut mid-link at the
    reply's token limit; json.loads refused the whole reply and the vault was quoted instead. The cut sentence is
    never read; the whole ones face the gates as any."""
    honest = _reply(
        ("Genmaicha is brewed at 80 degrees for three minutes.", "Tea"),
        ("Genmaicha is a Japanese green tea mixed with roasted brown rice.", "Tea"),
        ("Genmaicha is a tea from the hallway cupboard of", "Tea"),
    )
    answer = _ask(make_ctx, ScriptedProvider([_cut(honest)]), "How long is genmaicha brewed?")
    assert answer.answered and answer.dropped == 0
    assert answer.answer == (
        "Genmaicha is brewed at 80 degrees for three minutes. [1] "
        "Genmaicha is a Japanese green tea mixed with roasted brown rice. [1]"
    )


@pytest.mark.parametrize(
    "liar",
    [
        _reply(("Genmaicha is brewed at 95 degrees for three minutes.", "Tea"), ("It is brewed", "Tea")),
        _reply(("Genmaicha is best brewed with boiling water in a clay teapot.", "Tea"), ("It is brewed", "Tea")),
    ],
    ids=["adds-a-number", "own-knowledge"],
)
def test_a_cut_off_liars_whole_sentences_are_still_dropped(make_ctx: MakeContext, liar: object) -> None:
    answer = _ask(make_ctx, ScriptedProvider([_cut(liar)]), "How long is genmaicha brewed?")  # type: ignore[arg-type]
    assert not answer.answered and answer.dropped == 1
    assert "95" not in answer.answer and "clay" not in answer.answer


def test_call_shaped_text_is_never_shown(make_ctx: MakeContext) -> None:
    call = '{"name": "remove", "arguments": {"path": "notes/Tea.md"}}'
    provider = ScriptedProvider([json.dumps({"sentences": [{"text": call, "cite": 1}]})])
    answer = _ask(make_ctx, provider, "What is genmaicha?")
    assert answer.call_shaped == 1
    assert '"name"' not in answer.answer and "remove" not in answer.answer


def test_the_model_down_gives_the_extractive_answer(make_ctx: MakeContext) -> None:
    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    answer = _ask(make_ctx, ScriptedProvider([down]), "How often does the wifi password change?")
    assert not answer.answered
    assert "The wifi password changes every 90 days" in answer.answer
    assert [c.path for c in answer.citations] == ["notes/Router.md"]


def test_a_question_the_vault_does_not_hold_says_so(make_ctx: MakeContext) -> None:
    answer = _ask(make_ctx, ScriptedProvider([]), "who painted that famous portrait?")
    assert not answer.answered
    assert answer.answer.startswith("The vault does not say.")


def test_a_name_the_vault_does_not_hold_is_said_so(make_ctx: MakeContext) -> None:
    """``answer.unnamed``: the name the vault never names is said, not only that it does not say."""
    answer = _ask(make_ctx, ScriptedProvider([]), "Who painted the Mona Lisa?")
    assert not answer.answered
    assert answer.answer.startswith("The vault does not mention “Mona”.")


def test_a_model_labelling_everything_save_saves_nothing(make_ctx: MakeContext, tmp_path: Path) -> None:
    yes_save = ScriptedProvider([json.dumps({"intent": "save"}), _reply(("Genmaicha is green tea.", "Tea"))])
    answer = _ask(make_ctx, yes_save, "what is genmaicha")
    assert answer.intent == "vault"
    assert not (tmp_path / "vault" / "conversations").exists()


LINKED = {
    "notes/Sync.md": "# Sync\n\nThe version history depends on your [[Plans and storage limits|Sync plan]]. "
    "On the Plus plan notes are kept for 12 months.\n",
    "notes/Plans and storage limits.md": "# Plans and storage limits\n\nTwo plans: Standard and Plus.\n",
}


def test_wiki_links_the_model_copies_are_shown_as_the_page_shows_them(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI: "…depends on your [[Plans and storage limits|Obsidian Sync plan]]." shown raw."""
    copied = "The version history depends on your [[Plans and storage limits|Sync plan]]."
    provider = ScriptedProvider([_reply((copied, "Sync"))])
    ctx = make_ctx(LINKED)
    turn = Turn([{"role": "user", "content": "What does the version history depend on?"}], chat_id="t1")
    answer = answer_turn(ctx, provider, turn, model="scripted")
    assert answer.answered
    assert answer.answer == "The version history depends on your Sync plan. [1]"


def test_the_extractive_answer_shows_links_as_the_page_shows_them(make_ctx: MakeContext) -> None:
    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    ctx = make_ctx(LINKED)
    turn = Turn([{"role": "user", "content": "What does the version history depend on?"}], chat_id="t1")
    answer = answer_turn(ctx, ScriptedProvider([down]), turn)
    assert "The version history depends on your Sync plan." in answer.answer
    assert "[[" not in answer.answer
    assert "[[Plans and storage limits|Sync plan]]" in answer.citations[0].quote  # the source panel: verbatim


def test_a_sentence_repeating_the_question_is_dropped(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI: asked "Und unter macOS?", the small model wrote "Und unter macOS?" citing a passage
    that mentions macOS, and the words-in-passage check alone kept it."""
    provider = ScriptedProvider([_reply(("How long is genmaicha brewed?", "Tea"))])
    answer = _ask(make_ctx, provider, "How long is genmaicha brewed?")
    assert not answer.answered and answer.dropped == 1
    assert any("repeats the question" in note for note in answer.notes)
    assert answer.answer.startswith("From your vault (quoted):")


def test_a_follow_ups_sentence_answering_the_earlier_question_is_dropped() -> None:
    """Seen in Open WebUI: "Peki ne sıklıkla kaydedilir?" after "… kaç gün saklar?" got "… 7 gün boyunca
    saklanır", the passage holding both facts."""
    passage = Evidence(
        1,
        "Varsayılan olarak, anlık görüntüler en az 5 dakika arayla kaydedilir ve 7 gün boyunca saklanır.",
        "Dosya Kurtarma",
        "Dosya Kurtarma",
    )
    joined = "Dosya Kurtarma anlık görüntüleri kaç gün saklar? Peki ne sıklıkla kaydedilir?"
    turn = "Peki ne sıklıkla kaydedilir?"
    earlier_fact = CitedSentence("Anlık görüntüler 7 gün boyunca saklanır.", 1)
    its_fact = CitedSentence("Anlık görüntüler en az 5 dakika arayla kaydedilir.", 1)
    verdict = support.supported_sentences([earlier_fact, its_fact], {1: passage}, joined, turn)
    assert verdict.kept == [its_fact]
    assert "follow-up's own words" in verdict.reason
    assert support.supported_sentences([earlier_fact], {1: passage}, joined).kept == [earlier_fact]  # not a follow-up


def test_a_sentence_ending_in_a_colon_is_dropped() -> None:
    """Seen in Open WebUI after stop 45: asked how the daily note is named, the small model copied the passage's
    first lines, and "Para abrir la nota diaria de hoy, puedes:" (in its passage, the list it opens pinned on the
    wrong passages and dropped) was the whole answer."""
    passage = Evidence(
        1,
        "Para abrir la nota diaria de hoy, puedes:\n\n- Hacer clic en **Abrir la nota de hoy**.\n\n"
        "De forma predeterminada, Obsidian crea una nueva nota vacía con el nombre de la fecha de hoy.",
        "Notas diarias",
        "Notas diarias",
    )
    question = "¿Con qué nombre crea Obsidian la nota diaria?"
    lead_in = CitedSentence("Para abrir la nota diaria de hoy, puedes:", 1)
    bold_lead_in = CitedSentence("Para abrir **la nota diaria de hoy, puedes:**", 1)
    fact = CitedSentence("Obsidian crea una nueva nota vacía con el nombre de la fecha de hoy.", 1)
    verdict = support.supported_sentences([lead_in, bold_lead_in, fact], {1: passage}, question)
    assert verdict.kept == [fact]
    assert "ends in a colon" in verdict.reason


def test_a_heading_trail_written_as_a_sentence_is_dropped() -> None:
    """Seen in Open WebUI after stop 46 (row 8): the model wrote "Map view > Example" as a sentence, and the
    passage's trail counted as evidence; a sentence saying something of the body beside the title stays."""
    passage = Evidence(
        1,
        "For example, you can open a map of the places in your notes and zoom to each location.",
        "Map view",
        "Map view > Example",
    )
    trail = CitedSentence("Map view > Example", 1)
    title = CitedSentence("Map view.", 1)
    fact = CitedSentence("Map view can zoom to each location in your notes.", 1)
    verdict = support.supported_sentences([trail, title, fact], {1: passage}, "What does map view show?")
    assert verdict.kept == [fact]
    assert "title or heading trail" in verdict.reason


def test_a_notes_record_line_written_as_a_sentence_is_dropped(make_ctx: MakeContext) -> None:
    """Seen in Open WebUI after stop 46 (row 8): the model wrote a saved note's record line "Record: 2026-12-06-3"
    as a sentence citing the note, whose body holds every word of it."""
    vault = {
        "notes/Plan.md": "# Plan\n\nI want to try the Canvas plugin for my projects.\n\nRecord: [[2026-12-06-3]]\n"
    }
    provider = ScriptedProvider(
        [_reply(("I want to try the Canvas plugin.", "Plan"), ("Record: 2026-12-06-3", "Plan"))]
    )
    ctx = make_ctx(vault)
    turn = Turn([{"role": "user", "content": "Which plugin did I want to try?"}], chat_id="t1")
    answer = answer_turn(ctx, provider, turn, model="scripted")
    assert answer.answered and answer.dropped == 1
    assert answer.answer == "I want to try the Canvas plugin. [1]"
    assert any("record line" in note for note in answer.notes)


def test_a_record_line_in_another_languages_label_is_dropped_too(make_ctx: MakeContext) -> None:
    """A note saved in Turkish ends "Kayıt: [[…]]" (``vault.record_line``); read in any chat, the model's copy of
    it is no sentence either, whatever ``record_label`` says."""
    vault = {"notes/Plan.md": "# Plan\n\nCanvas eklentisini denemek istiyorum.\n\nKayıt: [[2026-12-06-3]]\n"}
    provider = ScriptedProvider(
        [_reply(("Canvas eklentisini denemek istiyorum.", "Plan"), ("Kayıt: 2026-12-06-3", "Plan"))]
    )
    turn = Turn([{"role": "user", "content": "Hangi eklentiyi denemek istiyordum?"}], chat_id="t1")
    answer = answer_turn(make_ctx(vault, record_label="Record:"), provider, turn, model="scripted")
    assert answer.answered and answer.dropped == 1
    assert answer.answer == "Canvas eklentisini denemek istiyorum. [1]"


def test_each_sentence_the_checks_leave_out_is_logged_with_the_check(
    make_ctx: MakeContext, caplog: pytest.LogCaptureFixture
) -> None:
    """The status only counts them ("2 sentences left out by the checks", row 8 on stop 46's merge): the log says
    which, one line each (the sentence cut to 120 characters) with the check that left it out."""
    long_lie = "The router was bought in Reykjavik " + "and carried home across many countries " * 5 + "in 2019."
    provider = ScriptedProvider(
        [
            _reply(
                ("The wifi password changes every 90 days.", "Router"),
                (long_lie, "Router"),
                ("Record: 2026-12-06-3", "Router"),
            )
        ]
    )
    with caplog.at_level(logging.INFO, logger="sentinel.answer"):
        answer = _ask(make_ctx, provider, "How often does the wifi password change?")
    assert answer.answered and answer.dropped == 2
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("left out by")]
    assert lines == [
        "left out by record_line: [1] Record: 2026-12-06-3",
        f"left out by gates.support: [1] {long_lie[:119]}…",
    ]
    assert all(r.levelno == logging.INFO for r in caplog.records if r.getMessage().startswith("left out by"))


def test_a_sentence_putting_the_questions_word_in_place_of_the_passages_is_dropped() -> None:
    """Seen in stop 47's last look (bench/answers.py es03): asked which file extension Bases files use, the model
    rewrote the Markdown import page's "Algunas aplicaciones usan una sintaxis Markdown ligeramente diferente" as
    "Los archivos de Bases usan …": 6 of its 7 content words are in the passage, the seventh is the question's.
    A paraphrase in the passage's own words beside the question's stays."""
    passage = Evidence(
        1,
        "Obsidian utiliza Markdown con formato Obsidian. Algunas aplicaciones usan una sintaxis Markdown "
        "ligeramente diferente. Puedes usar el Conversor de formato para convertir tus archivos.",
        "Importar archivos Markdown",
        "Importar archivos Markdown",
    )
    question = "¿Qué extensión de archivo usan los archivos de Bases en Obsidian?"
    grafted = CitedSentence("Los archivos de Bases usan una sintaxis Markdown ligeramente diferente.", 1)
    honest = CitedSentence("Algunas aplicaciones usan una sintaxis Markdown ligeramente diferente.", 1)
    restated = CitedSentence(
        "Algunas aplicaciones usan otra extensión y una sintaxis Markdown ligeramente diferente.", 1
    )
    verdict = support.supported_sentences([grafted, honest, restated], {1: passage}, question)
    assert verdict.kept == [honest, restated]  # the question's "extensión" is no name: the share gate judges it
    assert "question's bases" in verdict.reason


def test_a_sentence_written_twice_is_said_once(make_ctx: MakeContext) -> None:
    """Seen on bench/answers.py tr03 (stop 48): "Komut paletini açmak için `Ctrl+P` … basın. Ayrıca …" (two
    sentences in one item) written twice, citing passages 1 and 2, both kept and shown one after the other."""
    said = "Genmaicha is brewed at 80 degrees for three minutes. It is a Japanese green tea."
    twice = _reply((said, "Tea"), (said, "Tea"), ("Genmaicha is mixed with roasted brown rice.", "Tea"))
    answer = _ask(make_ctx, ScriptedProvider([twice]), "How long is genmaicha brewed?")
    assert answer.answered and answer.answer == f"{said} [1] Genmaicha is mixed with roasted brown rice. [1]"
