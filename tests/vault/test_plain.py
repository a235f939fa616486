"""A passage as a person's screen shows it (sentinel.vault.plain): the words, none of the markup."""

from __future__ import annotations

from sentinel.vault.plain import plain_text


def test_markup_goes_and_the_words_stay() -> None:
    markdown = (
        "# Sync\n\nSome **bold** and _slanted_ text ![[icon.svg#icon]] with a [[Page|label]], a [link](http://x)"
        " and ![an image](a.png).\n\n- one\n- two `code`\n\n> [!warning]+ Careful\n> ==Highlighted== words %%hidden%%\n"
    )
    assert plain_text(markdown) == (
        "Sync\n\nSome bold and slanted text with a label, a link and .\n\n• one\n• two code\n\n"
        "Careful Highlighted words"
    )


def test_code_blocks_stay_as_written() -> None:
    assert plain_text("```\n- [[]]\n**x**\n```") == "- [[]]\n**x**"
