"""What a person reads when the vault is quoted: whole sentences, never markup opened or closed half-way.

Seen in Open WebUI (docs/answers.md, "In the browser after stop 43's re-cut"): a quote ended in a code fence's
opener ("… copy the following properties into it: ```yaml") and another opened with a bold question's second
half ("Verliere ich …?**"), the pattern split having cut the bold span at its first question mark.
"""

from __future__ import annotations

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.answer.lines import LINES
from sentinel.providers.base import ProviderUnavailable
from tests.support.scripted import ChatRequest, ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Refunds.md": "# Refunds\n\n## Frequently asked questions\n\n"
    "**What happens if I miss a payment and my subscription ends? Do I lose my remote vault data?**\n"
    "No, your data is kept for 30 days in such cases. Your local data stays untouched.\n",
    "notes/Map view.md": "# Map view\n\n## Example\n\n"
    "To start, try creating a note called **Eiffel Tower** and copy the following yaml properties into it:\n\n"
    '```yaml\n---\ncoordinates:\n  - "48.85837"\n  - "2.294481"\nicon: "landmark"\n---\n```\n\n'
    "Here's what the code above means.\n",
}


def _quoted(make_ctx: MakeContext, question: str, vault: dict[str, str] = VAULT) -> str:
    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    ctx = make_ctx(vault)
    answer = answer_turn(ctx, ScriptedProvider([down]), Turn([{"role": "user", "content": question}], chat_id="q"))
    assert answer.answer.splitlines()[0] in {lines.quoted_heading for lines in LINES.values()}, answer.answer
    return answer.answer


def _balanced(line: str) -> bool:
    return line.count("**") % 2 == 0 and line.count("`") % 2 == 0


def test_a_bold_question_is_quoted_whole(make_ctx: MakeContext) -> None:
    shown = _quoted(make_ctx, "Is my remote data lost, or is my local data untouched?")
    assert "**What happens if I miss a payment and my subscription ends? Do I lose my remote vault data?**" in shown
    assert all(_balanced(line) for line in shown.splitlines()), shown
    assert _all_lines_quoted(shown), shown


def test_a_code_fence_is_never_quoted_half_way(make_ctx: MakeContext) -> None:
    shown = _quoted(make_ctx, "Which yaml properties do I copy into the Eiffel Tower note?")
    assert "copy the following yaml properties into it:" in shown
    assert "```" not in shown, shown
    assert _all_lines_quoted(shown)


def _all_lines_quoted(shown: str) -> bool:
    """Every line after the opening is inside the quote (a line left out of it reads as the system's own; a
    bare ">" keeps two paragraphs of the quote apart)."""
    return all(line.startswith("> ") or line == ">" for line in shown.splitlines()[1:] if line.strip())


# Stop 47: the quoted path's defects from stop 46's last browser check (docs/answers.md, "Stop 47: the quoted path").

DAILY = {
    "es/Notas diarias.md": "Notas diarias es un complemento principal que abre una nota basada en la fecha de hoy, "
    "o la crea si no existe.\n\nDe forma predeterminada, Obsidian crea una nueva nota vacía con el nombre de la "
    "fecha de hoy en formato YYYY-MM-DD.\n\n> [!tip] Si prefieres tener tus notas diarias en una carpeta "
    "separada, puedes configurar la Ubicación de archivo nuevo en las opciones del complemento.\n",
}
NAME_QUESTION = "¿Con qué nombre crea Obsidian la nota diaria?"
NAME_SENTENCE = "De forma predeterminada, Obsidian crea una nueva nota vacía con el nombre de la fecha de hoy"


def _chat(make_ctx: MakeContext, vault: dict[str, str], *turns: str) -> Answer:
    """The last of ``turns`` asked with the model down, each earlier answer as the pipeline gave it."""
    ctx, messages = make_ctx(vault), []
    answer = Answer("")
    for number, turn in enumerate(turns):
        messages.append({"role": "user", "content": turn})
        answer = answer_turn(ctx, ScriptedProvider([unreachable]), Turn(list(messages), chat_id=f"c{number}"))
        messages.append({"role": "assistant", "content": answer.answer})
    return answer


def test_a_follow_ups_quote_does_not_open_with_the_sentence_the_answer_before_quoted(make_ctx: MakeContext) -> None:
    """Row 5: "¿Y en qué carpeta?" opened with row 4's YYYY-MM-DD sentence before the folder sentence."""
    first = _chat(make_ctx, DAILY, NAME_QUESTION)
    assert NAME_SENTENCE in first.answer
    answer = _chat(make_ctx, DAILY, NAME_QUESTION, "¿Y en qué carpeta?")
    assert "en una carpeta separada" in answer.answer, answer.answer
    assert NAME_SENTENCE not in answer.answer, answer.answer


def test_an_all_read_follow_up_quotes_its_one_sentence_under_a_line_saying_so(make_ctx: MakeContext) -> None:
    """The yield floor: every sentence that answers was read already; the answer says so and quotes the one
    sentence that answers (never empty, never the whole earlier quote again, never a lesser page), citing it."""
    vault = {
        "en/Version history.md": "# Version history\n\nOn the Plus plan, notes are kept for 12 months.\n",
        # another page holding the follow-up's words: quoted, it would read as the answer (seen: "Below is a
        # comparison between the Standard plan and Plus plan:")
        "en/Plans.md": "# Plans\n\nBelow is a comparison between the Standard plan and the Plus plan.\n",
    }
    answer = _chat(make_ctx, vault, "How long is the version history kept?", "And on the Plus plan?")
    quoted = "> On the Plus plan, notes are kept for 12 months. [1]"
    assert answer.answer == f"As the answer above says (quoted):\n\n{quoted}", answer.answer
    assert [c.path for c in answer.citations] == ["en/Version history.md"]
    spanish = _chat(make_ctx, DAILY, "¿En qué carpeta crea Obsidian la nota diaria?", "¿Y en qué carpeta?")
    assert spanish.answer.startswith("Como dice la respuesta anterior (citado):\n\n> "), spanish.answer
    assert spanish.answer.count("[1]") == 1 and "[2]" not in spanish.answer, spanish.answer


RECOVERY = {
    "de/Datenwiederherstellung.md": "# Datenwiederherstellung\n\nStandardmäßig werden Sicherungskopien mindestens "
    "alle 5 Minuten gespeichert und 7 Tage lang aufbewahrt. Du kannst beide Zeiträume in den Einstellungen "
    "ändern.\n\nWenn du Obsidian Sync verwendest, werden Sicherungskopien der Datenwiederherstellung nicht "
    "zwischen Geräten synchronisiert.\n",
}


def test_a_further_sentence_about_something_else_on_the_page_is_left_out(make_ctx: MakeContext) -> None:
    """Row 2 and run 1's row 12: "… not synced between devices" quoted for how long backups are kept; it holds
    the question's words only as the page's name and the first quote already do. The sentence next to the first
    in its paragraph stays (row 1: the settings sentence after the 7 days)."""
    shown = _quoted(make_ctx, "Wie lange werden die Sicherungskopien der Datenwiederherstellung aufbewahrt?", RECOVERY)
    assert "7 Tage lang aufbewahrt. Du kannst beide Zeiträume in den Einstellungen ändern." in shown, shown
    assert "synchronisiert" not in shown, shown


def test_a_further_sentence_with_a_word_of_the_question_the_first_lacks_is_quoted(make_ctx: MakeContext) -> None:
    """The yield floor of the rule above: a sentence elsewhere on the page that says what the question asks and
    the first quote does not (here: Sync) is still quoted."""
    shown = _quoted(make_ctx, "Werden die Sicherungskopien mit Obsidian Sync synchronisiert?", RECOVERY)
    assert "zwischen Geräten synchronisiert" in shown, shown


FAQ = {
    "de/Erstattungsrichtlinie.md": "# Erstattungsrichtlinie\n\n## Häufig gestellte Fragen\n\n"
    "**Was passiert, wenn ich meinen Dienst erstatten lasse?**\nDie Erstattung eines Obsidian Sync-Abonnements "
    "führt zur Löschung aller Remote-Tresore.\n\n**Was passiert, wenn ich eine Zahlung verpasse? Verliere ich "
    "meine Remote-Tresor-Daten?**\nNein, deine Daten werden in solchen Fällen 30 Tage lang aufbewahrt.\n",
}


def test_an_faq_answer_is_quoted_with_its_question(make_ctx: MakeContext) -> None:
    """Row 7: "Nein, deine Daten werden … 30 Tage lang aufbewahrt." quoted alone for the refund window, so a
    reader took the 30 days for it; with its question the reader sees what it answers."""
    shown = _quoted(make_ctx, "Innerhalb welcher Frist bekomme ich eine Erstattung für Obsidian Sync?", FAQ)
    assert "Verliere ich meine Remote-Tresor-Daten?** Nein, deine Daten werden" in shown, shown


def test_a_yes_or_no_answer_without_its_question_is_never_quoted_alone(make_ctx: MakeContext) -> None:
    vault = {
        "de/Tresor.md": "# Tresor\n\nNein, deine Daten werden 30 Tage lang aufbewahrt.\n\n"
        "Die Daten eines Tresors werden nach der Kündigung gelöscht.\n"
    }
    shown = _quoted(make_ctx, "Wie lange werden die Daten des Tresors aufbewahrt?", vault)
    assert "gelöscht" in shown and "Nein" not in shown, shown


NUMBERS = {
    "en/Version history.md": "# Version history\n\nOn the Standard plan, notes are retained for 1 month, and on the "
    "Plus plan for 12 months.\n",
    "en/Introduction to Obsidian Sync.md": "# Introduction to Obsidian Sync\n\n- Version history - View or restore "
    "previous versions of a note kept by Obsidian Sync.\n",
}


def test_a_further_page_without_a_number_is_not_quoted_for_a_number_question(make_ctx: MakeContext) -> None:
    """Run 1's row 10: the Sync introduction's list item quoted under the 1-month / 12-months sentence."""
    shown = _quoted(make_ctx, "How long does Obsidian Sync keep the version history of my notes?", NUMBERS)
    assert "12 months" in shown and "View or restore" not in shown, shown


def test_a_sentence_announcing_a_list_is_quoted_with_it_one_item_a_line(make_ctx: MakeContext) -> None:
    """Seen in the browser (stop 48, row 7): "Wir bieten innerhalb von 7 Tagen … für die folgenden Dienste an:"
    quoted without the list after it, so a reader was not told which services."""
    vault = {
        "notes/Refund policy.md": "# Refund policy\n\nWe offer full refunds within 7 days of purchase for the "
        "following services:\n\n- [[Sync]]\n- [[Publish|Obsidian Publish]]\n\nSome purchases are not refundable.\n"
    }
    shown = _quoted(make_ctx, "Within how many days can I get a refund?", vault)
    assert "following services:\n>\n> - Sync\n> - Obsidian Publish [1]" in shown, shown


def test_a_quoted_step_brings_its_whole_numbered_list(make_ctx: MakeContext) -> None:
    """Seen in the browser (stop 49, bench/browser_turns_more.tsv row 8): "How do I pin a command …?" quoted steps
    2 and 3 of five, the ones holding the question's words; a reader was not told to open Settings first nor how
    to finish. A step is half an instruction: the steps are quoted whole, in order, one a line."""
    vault = {
        "notes/Command palette.md": "# Command palette\n\n## Pin a command\n\n1. Open **Settings**.\n2. In the "
        "sidebar, click **Command palette** under **Plugin options**.\n3. Next to **New pinned command**, click "
        "**Select a command**. A list opens.\n4. Select the command you want to pin from the list.\n5. Press "
        "`Enter`.\n\nPinned commands stay at the top.\n"
    }
    shown = _quoted(make_ctx, "How do I pin a command to the command palette?", vault)
    steps = [line for line in shown.splitlines() if line.startswith("> ") and line[2:3].isdigit()]
    assert [line[2:4] for line in steps] == ["1.", "2.", "3.", "4.", "5."], shown
    assert "click **Select a command**. A list opens.\n> 4. Select" in shown  # a step's second sentence on its line


TABS = {
    "notes/Tabs.md": "# Tabs\n\n## Close a tab\n\nTo close a tab, select the cross on it.\n\n## Switch to a different "
    "tab\n\nSelect a tab to switch to it. Or, use a keyboard shortcut:\n\n| Switch To | MacOS | Windows/Linux |\n"
    "|---|---|---|\n| **Next tab** | `⌃`+`⇥` | `Ctrl`+`Tab` |\n"
    "| **Previous tab** | `⌃`+`⇧`+`⇥` | `Ctrl`+`Shift`+`Tab` |\n"
    "| **First tab on the left** | `⌘`+`1` | `Ctrl`+`1` |\n| **Last tab on the right** | `⌘`+`9` | `Ctrl`+`9` |\n"
    "| **Recently closed tab** | `⌘`+`⇧`+`t` | `Ctrl`+`Shift`+`t` |\n"
}


def test_a_lead_in_announcing_a_table_is_quoted_with_the_row_that_answers(make_ctx: MakeContext) -> None:
    """The spent sixth file's row 8 in the browser: the lead-in "Select a tab to switch to it. Or, use a keyboard
    shortcut:" shown without the row after it. Quoted (no model) the row comes with its header (a guard: it held
    before stop 54's rule too)."""
    shown = _quoted(make_ctx, "How do I switch to the last tab with a keyboard shortcut?", TABS)
    assert "Last tab on the right" in shown, shown


# Stop 54 (h54g): a follow-up's chunk chosen by the one row holding most of its words (the spent turns files,
# bench/quoted_turns.py).

SHORTCUTS = {
    "notes/Terminal.md": "# Terminal\n\nThe terminal interface has keyboard shortcuts.\n\n## Navigation\n\n"
    "| Action | Shortcut |\n| --- | --- |\n"
    "| Move cursor left | `Ctrl+B` |\n| Move cursor right (accepts suggestion at end of line) | `Ctrl+F` |\n"
    "| Jump to start of line | `Ctrl+A` |\n| Jump to end of line | `Ctrl+E` |\n| Move back one word | `Alt+B` |\n\n"
    "## Editing\n\n| Action | Shortcut |\n| --- | --- |\n"
    "| Delete to start of line | `Ctrl+U` |\n| Delete to end of line | `Ctrl+K` |\n"
    "| Delete previous word | `Ctrl+W` |\n\n"
    "## Other\n\n| Action | Shortcut |\n| --- | --- |\n| Clear screen | `Ctrl+L` |\n| Exit | `Ctrl+C` |\n",
}


def test_a_follow_up_is_answered_by_the_row_holding_most_of_its_words(make_ctx: MakeContext) -> None:
    """The spent seventh file's row 9: the Navigation table's rows hold more of the follow-up's words between them
    (cursor, back, start, line) than the Editing table's (delete, start, line), and its rows "Move cursor right"
    and "Jump to start of line" were quoted; the one row holding most of them answers."""
    answer = _chat(
        make_ctx,
        SHORTCUTS,
        "how do i clear the screen in the terminal?",
        "and to delete everything from the cursor back to the start of the line?",
    )
    assert "Ctrl+U" in answer.answer, answer.answer
    assert "Ctrl+A" not in answer.answer and "Move cursor" not in answer.answer, answer.answer
