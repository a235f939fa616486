"""An answer that sits in one cell of a markdown table: the row holding it is quoted with its header, as a table.

Seen in the browser (docs/answers.md): "was kostet die VIP Stufe?" quoted a tier table's header row alone, and
"und Supporter?" the row naming Supporter, never the price row. The pages here are written for these tests.
"""

from __future__ import annotations

import json

from sentinel.answer import Answer, Turn, answer_turn, followup
from sentinel.answer.packet import Passage, build_packet
from sentinel.answer.quotes import best_sentences
from sentinel.answer.read import Read
from sentinel.providers.base import ProviderUnavailable
from tests.support.scripted import ChatRequest, ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext

HEADER = "| Perks            | Seedling | Gardener | Patron |"
SEPARATOR = "| ---------------- | :------: | :------: | :----: |"
PIN_ROW = "| Gardener pin     |          |    ✓     |        |"
FEE_ROW = "| **Fee (EUR)**    | **€10**  | **€20**  | **€40** |"
CLUB = {
    "notes/Garden club.md": "# Garden club\n\nThe garden club has three membership levels. Pick the one that fits:\n\n"
    f"{HEADER}\n{SEPARATOR}\n| Seed swap        |    ✓     |    ✓     |   ✓    |\n{PIN_ROW}\n{FEE_ROW}\n\n"
    "Members meet on the first Saturday of each month.\n",
}
VEREIN = {
    "notes/Gartenverein.md": "# Gartenverein\n\nDer Gartenverein hat drei Stufen. Wähle die passende:\n\n"
    "| Vorteile           | Keimling | Gärtner | Gönner |\n| ------------------ | :------: | :-----: | :----: |\n"
    "| Gärtner-Anstecker  |          |    ✓    |        |\n| **Beitrag (EUR)**  | **€10**  | **€20** | **€40** |\n",
}
PROSE = {
    "notes/Compost.md": "# Compost\n\nA compost heap needs turning every two weeks. Keep it as damp as a wrung "
    "sponge.\n\nKitchen scraps go in; meat and dairy stay out.\n",
}


def _chat(make_ctx: MakeContext, vault: dict[str, str], *turns: str, model: object = unreachable) -> Answer:
    """The last of ``turns``, each earlier answer in the conversation as the pipeline gave it."""
    ctx, messages = make_ctx(vault), []
    answer = Answer("")
    for number, turn in enumerate(turns):
        messages.append({"role": "user", "content": turn})
        provider = ScriptedProvider([model])  # type: ignore[list-item]
        answer = answer_turn(ctx, provider, Turn(list(messages), chat_id=f"c{number}"))
        messages.append({"role": "assistant", "content": answer.answer})
    return answer


def _table_lines(answer: Answer) -> list[str]:
    """The quoted table's lines as the person reads them (the quote's "> " taken off)."""
    return [line[2:] for line in answer.answer.splitlines() if line.startswith("> |")]


def test_a_price_question_quotes_the_header_and_the_price_row(make_ctx: MakeContext) -> None:
    answer = _chat(make_ctx, CLUB, "How much does the Patron membership cost?")
    assert _table_lines(answer) == [HEADER, SEPARATOR, FEE_ROW], answer.answer
    assert answer.citations and answer.citations[0].path == "notes/Garden club.md"


def test_a_follow_up_naming_another_column_gets_the_same_price_row(make_ctx: MakeContext) -> None:
    answer = _chat(make_ctx, CLUB, "How much does the Patron membership cost?", "And Gardener?")
    lines = _table_lines(answer)
    assert lines[:2] == [HEADER, SEPARATOR] and FEE_ROW in lines, answer.answer
    assert PIN_ROW not in lines, answer.answer  # the row naming the column, not holding the amount


def test_a_german_follow_up_after_was_kostet_gets_the_price_row(make_ctx: MakeContext) -> None:
    answer = _chat(make_ctx, VEREIN, "Was kostet die Gönner-Stufe?", "und Gärtner?")
    lines = _table_lines(answer)
    assert lines[:2] == VEREIN["notes/Gartenverein.md"].splitlines()[4:6], answer.answer
    assert any("Beitrag" in line for line in lines) and not any("Anstecker" in line for line in lines), answer.answer


def test_when_the_models_sentences_are_all_dropped_the_quote_is_the_price_row(make_ctx: MakeContext) -> None:
    def unsupported(_: ChatRequest) -> str:  # a sentence about the table that its passage does not hold
        return json.dumps(
            {"sentences": [{"text": "The Patron level is the best value for keen gardeners.", "cite": 1}]}
        )

    answer = _chat(make_ctx, CLUB, "How much does the Patron membership cost?", model=unsupported)
    assert not answer.answered and answer.dropped == 1, answer.answer
    assert _table_lines(answer) == [HEADER, SEPARATOR, FEE_ROW], answer.answer


def test_a_row_question_without_a_number_gets_the_row_sharing_its_words(make_ctx: MakeContext) -> None:
    answer = _chat(make_ctx, CLUB, "Which membership level gets the Gardener pin?")
    assert _table_lines(answer) == [HEADER, SEPARATOR, PIN_ROW], answer.answer


def test_a_header_row_is_never_quoted_alone() -> None:
    text = "Pick a level:\n\n" + "\n".join([HEADER, SEPARATOR, PIN_ROW, FEE_ROW])
    passage = Passage(1, "notes/Garden club.md", "Garden club", "", "Garden club", text)
    quote = best_sentences(passage, "Which perks and levels are there?", "Record")
    assert quote.strip() != HEADER
    assert HEADER not in quote or SEPARATOR in quote, quote


def test_a_passage_without_a_table_is_quoted_as_before(make_ctx: MakeContext) -> None:
    """A guard, not a test of the change: prose is quoted exactly as it was before tables were read."""

    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    answer = _chat(make_ctx, PROSE, "How often does a compost heap need turning?", model=down)
    quoted = "> A compost heap needs turning every two weeks. Keep it as damp as a wrung sponge. [1]"
    assert answer.answer.splitlines()[2:] == [quoted], answer.answer


def test_a_rows_label_is_matched_by_its_stems() -> None:
    """A row's cells are labels a question inflects: "Maximale Dateigröße" answers "… Datei … maximal …"."""
    text = (
        "| | Basis | Plus |\n| --- | --- | --- |\n| Synchronisierte Tresore | 1 | 10 |\n"
        "| Maximale Dateigröße | 5 MB | 200 MB |\n"
    )
    passage = Passage(1, "notes/Tarife.md", "Tarife", "", "Tarife", text)
    quote = best_sentences(passage, "Wie groß darf eine Datei bei Basis maximal sein?", "Record")
    assert quote.splitlines()[2:] == ["| Maximale Dateigröße | 5 MB | 200 MB |"], quote


RENT_ROW = "| Rent per year   | €30        | €60        |"
PLOTS = {
    "notes/Plot rental.md": "# Plot rental\n\nThe allotment rents two sizes of plot.\n\n"
    "|                 | Small plot | Large plot |\n| --------------- | ---------- | ---------- |\n"
    f"| Plots available | 12         | 4          |\n{RENT_ROW}\n| Water taps      | 1          | 2          |\n",
}


def test_a_follow_up_naming_another_column_of_a_row_already_shown_quotes_that_row_again(
    make_ctx: MakeContext,
) -> None:
    """Every row gives a number here: the next unread row ("Plots available") is no answer to "And for …?"."""
    first = _chat(make_ctx, PLOTS, "How much is the rent per year for a Large plot?")
    assert RENT_ROW in _table_lines(first), first.answer
    answer = _chat(make_ctx, PLOTS, "How much is the rent per year for a Large plot?", "And for a Small plot?")
    assert RENT_ROW in _table_lines(answer), answer.answer
    assert not any("Plots available" in line for line in _table_lines(answer)), answer.answer


WINDOWS_DELETE = "| Delete the current line | `Ctrl+Shift+K` (with no selected text) |"
MAC_DELETE = "| Delete the current line | `Cmd+Shift+K` (with no selected text) |"
# An excerpt of the eval vault's en/Editing and formatting/Editing shortcuts.md: a table of six rows stays in its
# window, one of eight is cut a row a unit (``vault.entries``), as on the page.
SHORTCUTS = {
    "notes/Editing shortcuts.md": "# Editing shortcuts\n\nThis page lists default keyboard shortcuts for navigating "
    "and editing text.\n\n## Windows and Linux shortcuts\n\n### Text editing\n\n| Action | Shortcut |\n|-|-|\n"
    "| Insert new line| `Enter` |\n| Delete the previous character | `Backspace` |\n"
    "| Delete the next character | `Delete` |\n| Delete the previous word | `Ctrl+Backspace` |\n"
    f"| Delete the next word | `Ctrl+Delete` |\n{WINDOWS_DELETE}\n\n## macOS shortcuts\n\n### Text editing\n\n"
    "| Action | Shortcut |\n|-|-|\n| Insert new line| `Enter` |\n| Delete the previous character | `Backspace` |\n"
    "| Delete the next character | `Delete` |\n| Delete the previous word | `Option+Backspace` |\n"
    "| Delete the next word | `Option+Delete` |\n| Delete to the beginning of the current line | `Cmd+Backspace` |\n"
    f"| Delete to the end of the current line | `Cmd+Delete` |\n{MAC_DELETE}\n",
}
DELETE_LINE = "is there a shortcut on windows to delete the whole line im on without selecting it first"


def test_a_follow_up_naming_only_another_platform_gets_the_row_of_the_thing_shown(make_ctx: MakeContext) -> None:
    """Seen in the browser (stop 52, a spent held-out turn): "and on my macbook?" after the Windows row "Delete the
    current line" was answered with the macOS row "Delete to the end of the current line | Cmd+Delete", which holds
    as many of the joined question's words; the macOS row of the thing shown answers it."""
    first = _chat(make_ctx, SHORTCUTS, DELETE_LINE)
    assert WINDOWS_DELETE in _table_lines(first), first.answer
    answer = _chat(make_ctx, SHORTCUTS, DELETE_LINE, "and on my macbook?")
    assert MAC_DELETE in _table_lines(answer), answer.answer
    assert not any("Cmd+Delete" in line or "Ctrl+Shift+K" in line for line in _table_lines(answer)), answer.answer


# Stop 53 (h53c): another page names the Mac; no page writes "MacBook", "Garmin".
SHORTCUTS_AND_MAC = {
    **SHORTCUTS,
    "notes/Install.md": "# Install\n\nObsidian runs on your Mac, on a Windows computer and on Linux.\n",
}


def test_a_follow_up_naming_a_kind_of_a_platform_the_vault_names_gets_its_row_under_a_line(
    make_ctx: MakeContext,
) -> None:
    """Stop 52's platforms set: "and on a MacBook?", capitalised, was read as a name no chunk holds and answered
    with silence, where "and on my macbook?" got the macOS row. A MacBook is a Mac (``unnamed.kin_of_a_name``):
    the line that the vault does not name it, then the row."""
    answer = _chat(make_ctx, SHORTCUTS_AND_MAC, DELETE_LINE, "and on a MacBook?")
    assert answer.answer.startswith("The vault does not mention “MacBook”. "), answer.answer
    assert MAC_DELETE in _table_lines(answer), answer.answer


def test_a_follow_up_naming_a_thing_the_vault_never_names_is_told_in_place_of_an_answer(
    make_ctx: MakeContext,
) -> None:
    answer = _chat(make_ctx, SHORTCUTS_AND_MAC, DELETE_LINE, "and on my Garmin?")
    assert answer.answer.startswith("The vault does not mention “Garmin”. The closest pages"), answer.answer
    assert not _table_lines(answer) and not answer.citations


def test_the_model_reads_the_row_of_the_thing_shown_first(make_ctx: MakeContext) -> None:
    """The packet a model writes from: its first passage is the macOS row of the thing the answer before showed."""
    ctx = make_ctx(SHORTCUTS)
    first = answer_turn(ctx, None, Turn([{"role": "user", "content": DELETE_LINE}]))
    asked = followup.asked([DELETE_LINE, "und auf dem MacBook?"])
    packet = build_packet(
        ctx, asked.searched, passages=4, budget_tokens=1200, turn=asked.turn, read=Read.of(first.answer)
    )
    assert MAC_DELETE in packet.passages[0].text, packet.render()


def test_a_follow_up_naming_the_platform_of_the_row_shown_gets_that_row_again(make_ctx: MakeContext) -> None:
    """A follow-up naming the heading of the row shown ("And on Linux?"): that row is its answer, said to be above,
    not the macOS row of the same thing."""
    answer = _chat(make_ctx, SHORTCUTS, DELETE_LINE, "And on Linux?")
    assert WINDOWS_DELETE in _table_lines(answer) and MAC_DELETE not in answer.answer, answer.answer


def test_a_follow_up_asking_something_of_its_own_is_not_held_to_the_thing_shown() -> None:
    """A follow-up asking its own thing ("And which deletes the previous word?"): the thing shown does not lead."""
    text = SHORTCUTS["notes/Editing shortcuts.md"].split("## macOS shortcuts")[1]
    passage = Passage(1, "notes/Editing shortcuts.md", "Editing shortcuts", "", "Editing shortcuts", text)
    read = Read.of(f"> | Action | Shortcut |\n> |-|-|\n> {WINDOWS_DELETE}")
    quote = best_sentences(passage, DELETE_LINE, "Record", lead="And which deletes the previous word?", read=read)
    assert quote.splitlines()[2] == "| Delete the previous word | `Option+Backspace` |", quote  # ranked first


def test_a_follow_up_naming_a_rows_thing_gets_that_row_not_the_thing_shown() -> None:
    """A follow-up naming a row ("And on the Plus plan?" over a row "Plus"): the row "Standard", whose first cell
    the answer before named in prose, is not the thing asked again."""
    text = "| Plan | Version history | File size |\n| --- | --- | --- |\n| Standard | 1 month | 5 MB |\n"
    text += "| Plus | 12 months | 200 MB |\n"
    passage = Passage(1, "notes/Plans.md", "Plans", "", "Plans", text)
    read = Read.of("On the Standard plan, version history is kept for 1 month, and on every plan it can be restored.")
    question = "How long is version history kept on the Standard plan? And on the Plus plan?"
    quote = best_sentences(passage, question, "Record", count=1, lead="And on the Plus plan?", read=read)
    assert quote.splitlines()[2:] == ["| Plus | 12 months | 200 MB |"], quote
