"""Units decided per block from structure, and the date a page names for itself."""

from __future__ import annotations

from sentinel.vault.entries import page_date, units, windows
from sentinel.vault.parse import parse_page


def test_a_run_of_short_entries_is_one_unit_an_entry_and_prose_keeps_windows() -> None:
    prose = " ".join(["Prose about the kitchen."] * 20)
    turns = "\n".join(f"- **{'Ana' if i % 2 else 'Sam'}:** turn number {i} says something short" for i in range(8))
    got = units(f"{prose}\n\n{turns}\n\nMore prose after the list.", limit=250)
    assert got[0] == prose
    assert got[1:9] == [f"- **{'Ana' if i % 2 else 'Sam'}:** turn number {i} says something short" for i in range(8)]
    assert got[9] == "More prose after the list."


def test_short_lists_long_items_and_code_stay_prose() -> None:
    short = "Intro.\n\n- one item here\n- two items here\n- three items"
    assert units(short, 250) == [short]
    long_items = "\n".join("- " + " ".join(["word"] * 80) for _ in range(10))
    assert units(long_items, 250) == windows(long_items, 250)  # prose set as a list: windows, not entries
    code = "```\n" + "\n".join(f"- not an entry {i} in code" for i in range(10)) + "\n```"
    assert units(code, 250) == [code]


def test_tiny_entries_ride_with_the_one_before_and_nothing_is_lost() -> None:
    text = "\n".join(
        [
            "- **Sam:** the boiler man comes on Thursday",
            "- **Ana:** ok",
            "- **Sam:** lol",
            *[f"- **Ana:** a real line number {i}" for i in range(8)],
        ]
    )
    got = units(text, 250)
    assert got[0] == "- **Sam:** the boiler man comes on Thursday\n- **Ana:** ok\n- **Sam:** lol"
    assert " ".join(got).split() == text.split()


def test_table_rows_are_entries_with_their_header() -> None:
    rows = "\n".join(f"| 2024-0{i}-01 | paid rent {i} |" for i in range(1, 10))
    got = units(f"| date | what |\n|---|---|\n{rows}", 250)
    assert got[0] == "| date | what |\n| 2024-01-01 | paid rent 1 |" and len(got) == 9


def test_a_table_under_a_short_separator_is_read_as_the_chunker_reads_every_table() -> None:
    """``|-|-|`` is a separator (``vault.tables.SEPARATOR``, the one rule): each row keeps its header; with an entry
    run's own 3-dash rule the separator was an entry and every row stood alone (en Editing shortcuts)."""
    rows = "\n".join(f"| Ctrl+{i} | action {i} |" for i in range(1, 10))
    got = units(f"| keys | what |\n|-|-|\n{rows}", 250)
    assert got[0] == "| keys | what |\n| Ctrl+1 | action 1 |" and len(got) == 9


def test_a_nested_item_belongs_to_the_entry_above() -> None:
    text = "\n".join(["- first entry with words", "  - nested detail", *[f"- entry {i} with words" for i in range(8)]])
    assert units(text, 250)[0] == "- first entry with words\n- nested detail"


def test_the_page_date_comes_from_frontmatter_then_title() -> None:
    assert page_date({"date": "2024-03-02"}, "Chat") == "2024-03-02"
    assert page_date({"created": "2024-03-02T10:00:00"}, "Chat") == "2024-03-02"
    assert page_date({}, "2024-05-17 Standup") == "2024-05-17"
    assert page_date({"date": "2024-13-45"}, "no date") == ""
    page = parse_page("Chats/Ana.md", "---\ndate: 2024-03-02\n---\n# Ana\n\nHello.\n")
    assert page.date == "2024-03-02" and page.chunks[0].trail == "Ana (2024-03-02) > Ana"
    dated_title = parse_page("Journal/2024-05-17 Standup.md", "Hello.\n")
    assert dated_title.date == "2024-05-17" and dated_title.chunks[0].trail == "2024-05-17 Standup"


def test_a_short_table_longer_than_a_window_is_cut_between_rows_each_under_its_header() -> None:
    header, rule = "| Option | Type | Description |", "| --- | --- | --- |"
    rows = [f"| Option {i} | Button | {' '.join(['word'] * 30)} |" for i in range(6)]  # too few to be entries
    long_row = f"| Long | Input | {' '.join(['many'] * 80)} |"
    text = "\n".join(["Intro line before the table.", header, rule, *rows, long_row])
    got = units(text, 120)
    assert got[0] == "Intro line before the table."
    tables = [piece.splitlines() for piece in got[1:]]
    assert all(lines[:2] == [header, rule] for lines in tables), got
    assert [row for lines in tables for row in lines[2:]] == [*rows, long_row]  # whole rows, in order, once
    assert tables[-1] == [header, rule, long_row]  # a row over the limit is a piece of its own, never cut
    assert all(len(" ".join(lines).split()) <= 120 for lines in tables[:-1])
    prose = " ".join(["word"] * 300)
    assert windows(prose, 120) == [" ".join(["word"] * 120)] * 2 + [" ".join(["word"] * 60)]  # prose: by words


def test_a_long_list_paragraph_is_cut_between_its_items_each_on_its_own_line() -> None:
    """Six items of 30 words (too few to be entries) in one paragraph of 186 words: cut by words, item 4 began in one
    unit and ended in the next, and every item's line break was lost."""
    items = [f"- Step {i}: {' '.join(['word'] * 28)}." for i in range(6)]
    got = units("\n".join(items), 120)
    assert got == ["\n".join(items[:3]), "\n".join(items[3:])]


def test_a_long_line_of_sentences_is_cut_between_sentences() -> None:
    """Eight sentences of 25 words on one line: by words, the cut after word 120 fell inside the fifth."""
    sentences = [f"Sentence {i} says {' '.join(['more'] * 21)} here." for i in range(8)]
    got = units(" ".join(sentences), 120)
    assert got == [" ".join(sentences[:4]), " ".join(sentences[4:])]


def test_a_cut_by_words_never_falls_inside_a_link() -> None:
    """One sentence of 130 words: the cut after word 120 fell inside the link ("[[Frequently asked questions#How
    many ‖ remote vaults can I have?|vault limit]]", en Set up Obsidian Sync); it goes before the link now."""
    link = "[[Frequently asked questions#How many remote vaults can I have?|vault limit]]"
    text = f"{' '.join(['word'] * 116)} {link} {' '.join(['tail'] * 4)}"
    got = units(text, 120)
    assert got == [" ".join(["word"] * 116), f"{link} {' '.join(['tail'] * 4)}"]
    markdown = "[the sync limits page](https://obsidian.md/help/sync-limits)"
    got = units(f"{' '.join(['word'] * 118)} {markdown} tail", 120)
    assert got == [" ".join(["word"] * 118), f"{markdown} tail"]


def test_a_table_inside_a_long_paragraph_keeps_the_lines_around_it() -> None:
    intro = ["Some intro line with words.", "A second line under it."]
    rows = [f"| a{i} | {' '.join(['cell'] * 30)} |" for i in range(4)]
    got = units("\n".join([*intro, "| key | value |", "| --- | --- |", *rows]), 120)
    assert got[0] == "\n".join(intro)  # by words, the two lines were joined with a space
