"""A written sentence that re-strings its passage's sentence around a verb the passage lacks, or copies it with
the question's words added, is not shown: the passage's sentence is, cited the same (gates/garbled.py); an exact
copy and an honest restatement are kept.

Seen in the browser (bench/browser_turns_fourth.tsv row 4): for "wie krieg ich am pc die neuen beta builds?" the
small Qwen wrote "Deine E-Mail ist deine E-Mail ein." from "Gib unter **E-Mail** deine E-Mail ein.", and every
gate kept it. Here so the mutation harness reaches the gate. The page is the eval vault's, its section verbatim.
"""

from __future__ import annotations

import logging

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.gates.garbled import garbled_source, whole_copies
from sentinel.gates.support import CitedSentence, Evidence
from tests.support.scripted import ScriptedProvider, cited_sentences, unreachable
from tests.support.tool_context import MakeContext

# de/Obsidian/Vorabversionen.md, its "Vorabversionen für Desktop aktivieren" section
PAGE = (
    "# Vorabversionen\n\n## Vorabversionen für Desktop aktivieren\n\n"
    "Um Vorabversionen zu erhalten, sobald sie verfügbar sind, folge diesen Schritten:\n\n"
    "1. Öffne **[[Einstellungen]]**.\n"
    "2. Wähle in der Seitenleiste **Allgemein**.\n"
    "3. Wähle unter **Konto → Dein Nutzerkonto** die Option **Anmelden**.\n"
    "4. Gib unter **E-Mail** deine E-Mail ein.\n"
    "5. Gib unter **Passwort** dein Passwort ein.\n"
    "6. Kehre nach der Anmeldung zu **[[Einstellungen]]** zurück.\n"
    "7. Wähle in der Seitenleiste **Allgemein**.\n"
    "8. Aktiviere unter **App** die Option **Insider-Builds erhalten**.\n"
    "9. Klicke auf **Nach Aktualisierungen suchen** und dann auf **Neu starten**.\n"
)
QUESTION = "wie krieg ich am pc die neuen beta builds?"
GARBLED = "Deine E-Mail ist deine E-Mail ein."
SOURCE = "Gib unter **E-Mail** deine E-Mail ein."
COPY = "Gib unter E-Mail deine E-Mail ein."
RESTATED = "Unter E-Mail gibst du deine E-Mail ein."
INSIDER = "Aktiviere unter App die Option Insider-Builds erhalten."


def _ask(make_ctx: MakeContext, *written: str) -> Answer:
    ctx = make_ctx({"de/Obsidian/Vorabversionen.md": PAGE})
    return answer_turn(
        ctx, ScriptedProvider([cited_sentences(*written)]), Turn([{"role": "user", "content": QUESTION}], chat_id="q")
    )


def test_the_garbled_copy_is_shown_as_its_source_sentence(
    make_ctx: MakeContext, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="sentinel.answer"):
        answer = _ask(make_ctx, INSIDER, GARBLED)
    assert answer.answered, answer.answer  # written, not quoted: the person reads the passage's sentence
    assert GARBLED not in answer.answer and " ist " not in answer.answer, answer.answer
    assert answer.answer == f"{INSIDER} [1] {SOURCE} [1]", answer.answer
    left_out = [r.getMessage() for r in caplog.records if r.getMessage().startswith("left out by")]
    assert left_out == [f"left out by gates.garbled: [1] {GARBLED}"]
    assert any("garbled copy" in note for note in answer.notes), answer.notes


def test_an_exact_copy_and_an_honest_restatement_are_kept(make_ctx: MakeContext) -> None:
    answer = _ask(make_ctx, COPY, RESTATED)
    assert answer.answered and answer.answer == f"{COPY} [1] {RESTATED} [1]", answer.answer
    assert answer.dropped == 0


@pytest.mark.parametrize(
    ("written", "source"),
    [
        (GARBLED, "4. Gib unter **E-Mail** deine E-Mail ein."),  # a copula added, "deine" strung twice
        ("Deine Passwort ist dein Passwort ein.", "5. Gib unter **Passwort**"),  # "Deine": "dein"
        ("Die Option ist Insider-Builds erhalten unter App.", "8. Aktiviere unter **App** die Option"),
        ("Unter Passwort dein Passwort ein.", "5. Gib unter **Passwort**"),  # the verb lost, its "ein" kept
        ("Dein Passwort gibst du unter Passwort ein.", ""),  # its own form of the verb
        (COPY, ""),  # the source itself
        (RESTATED, ""),  # its own verb: a restatement, not a copy
        ("Die Option Insider-Builds erhalten aktivierst du unter App.", ""),  # re-ordered round its own verb
        ("Unter App ist die Option Insider-Builds erhalten.", ""),  # a copula added, the source's order kept
    ],
)
def test_which_sentence_is_a_garbled_copy(written: str, source: str) -> None:
    found = garbled_source(written, PAGE)
    assert found.startswith(source) and bool(found) == bool(source), found


def test_the_source_stands_as_a_reader_reads_it() -> None:
    packet = {1: Evidence(1, PAGE, "Vorabversionen")}
    verdict = whole_copies([CitedSentence(GARBLED, 1), CitedSentence(COPY, 1)], packet)
    assert [s.text for s in verdict.kept] == [SOURCE, COPY]  # the list's "4." left off, the bold kept
    assert verdict.dropped == [CitedSentence(GARBLED, 1)] and not verdict.passed


def test_a_garbled_sentence_inside_an_item_is_replaced_alone() -> None:
    packet = {1: Evidence(1, PAGE, "Vorabversionen")}
    verdict = whole_copies([CitedSentence(f"{INSIDER} {GARBLED}", 1)], packet)
    assert [s.text for s in verdict.kept] == [f"{INSIDER} {SOURCE}"]


# bench/browser_turns_fifth.tsv rows 11 and 12: saved in one chat, asked back in a new one
SAVED = "Noor lends me her glaze samples on friday at the pottery studio"
RECALL = "who was lending me the glaze samples again?"
ECHOED = "Noor lends me her glaze samples again on friday."  # the browser's answer: the question's "again" added


def test_the_persons_saved_words_are_recalled_without_the_questions_word(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"de/Obsidian/Vorabversionen.md": PAGE})
    save = Turn([{"role": "user", "content": f"save this: {SAVED}"}], chat_id="save")
    assert answer_turn(ctx, ScriptedProvider([unreachable]), save).saved.startswith("notes/")
    recall = Turn([{"role": "user", "content": RECALL}], chat_id="recall")
    answer = answer_turn(ctx, ScriptedProvider([cited_sentences(ECHOED)]), recall)
    assert answer.answered and answer.answer == f"{SAVED} [1]", answer.answer
    assert answer.citations[0].path.startswith("notes/") and "again" not in answer.answer


@pytest.mark.parametrize(
    ("written", "replaced"),
    [
        (ECHOED, True),
        ("Noor lends me her glaze samples again.", True),  # half the sentence, in its order, "again" added
        ("Noor lends me her glaze samples on friday.", False),  # a word dropped, none added: kept as written
        ("Noor lends you her glaze samples on friday.", False),  # "you" is no word of the question
        ("Again Noor.", False),  # too little of the sentence to be a copy of it
        ("Noor was lending me her glaze samples on friday.", True),  # the question's form of the verb for "lends"
    ],
)
def test_which_copy_adds_the_questions_words(written: str, replaced: bool) -> None:
    found = garbled_source(written, f"{SAVED}\n\nRecord: [[2026-12-07-1]]\n", RECALL)
    assert found == (SAVED if replaced else ""), found


# bench/browser_turns_seventh.tsv row 8 (its start run): en/Editing and formatting/Views and editing mode.md's tip
TIP = (
    "> [!tip] Toggle *Editing mode*\n> To toggle between *Live Preview* and *Source mode* quickly, you can set a "
    "[[Hotkeys|Hotkey]] for the [[Command palette|command]] **Toggle Live Preview/Source mode**."
)
CLEAR = "ok and when im in its interactive mode how do i clear the screen"


@pytest.mark.parametrize(
    ("written", "replaced"),
    [
        # the page's purpose swapped for the question's: "the" is the question's phrase's, out of the tip's order
        ("To clear the screen, you can set a Hotkey for the command Toggle Live Preview/Source mode.", True),
        ("You can set a Hotkey for the command Toggle Live Preview/Source mode.", False),  # a shorter copy: kept
        ("To switch modes quickly, you can set a Hotkey for the command Toggle Live Preview/Source mode.", False),
    ],
)
def test_a_copy_whose_purpose_is_the_questions_is_shown_as_its_source(written: str, replaced: bool) -> None:
    found = garbled_source(written, TIP, CLEAR)
    assert bool(found) is replaced, found
    assert not found or found.startswith("> To toggle between"), found
