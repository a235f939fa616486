"""A link as a person is shown it, whole or cut in half (vault/links.py ``shown_links``)."""

from __future__ import annotations

import pytest

from sentinel.vault.hashes import content_hash
from sentinel.vault.links import shown_links, text_without_link_markup


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # seen in the browser at stop 52 and in answers_set's tr03
        ("Se almacenan en el [#Historial de versiones].", "Se almacenan en el Historial de versiones."),
        ("[[Komut Paleti]] [[Yerleşik Eklentiler|eklentisi], herhangi", "Komut Paleti eklentisi, herhangi"),
        (r"Es una de las \[\[Tres leyes del movimiento\]\]", "Es una de las Tres leyes del movimiento"),
        ("a [[Page|label] b", "a label b"),
        ("a [[Page#Part|label", "a label"),
        ("a [Page|label]] b", "a label b"),
        ("see Page]] now", "see Page now"),
        ("the [[#Heading]] and [[Page|label]]", "the Heading and label"),
    ],
)
def test_a_cut_link_is_shown_as_its_label(written: str, shown: str) -> None:
    assert shown_links(written) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Type `[[` and `[[#` in the editor, and `[1,[2,3]].flat()`.",
        "See [the guide](https://example.org/a) [1] and - [ ] a task.",
        "| Plan | Price |",
        "A [bracketed aside] stays.",
    ],
)
def test_what_is_no_cut_link_reads_as_before(text: str) -> None:
    assert shown_links(text) == text_without_link_markup(text) == text


def test_a_half_that_lost_its_opening_is_its_label_where_the_source_holds_the_link() -> None:
    written = "It depends on your Plans and storage limits|Sync plan]. See [[Plans and storage limits|Sync plan]]."
    source = "It depends on your [[Plans and storage limits|Sync plan]]."
    assert shown_links(written, source) == "It depends on your Sync plan. See Sync plan."
    tr = "[[Komut Paleti]] [[Yerleşik Eklentiler|eklentisi]], herhangi bir komutu doğrudan çalıştırmanızı sağlar."
    cut = "Komut Paleti Yerleşik Eklentiler|eklentisi], herhangi"
    assert shown_links(cut, tr) == "Komut Paleti eklentisi, herhangi"
    # without the source, no word before the half is taken for the page's name: the name is shown, not the label
    assert shown_links(written) == "It depends on your Plans and storage limits. See Sync plan."


def test_the_content_hash_does_not_read_cut_links() -> None:
    cut = "Se almacenan en el [#Historial de versiones]."
    assert content_hash(cut) != content_hash(shown_links(cut))


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (
            "1. Abre la Barra lateral izquierda ![[obsidian-icon-side-bar-left.svg]].",
            "1. Abre la Barra lateral izquierda.",
        ),
        (
            "- ![[lucide-book-icon.svg#icon]] Eklenti panelindeki **Kitap simgesi**.",
            "- Eklenti panelindeki **Kitap simgesi**.",
        ),
        ("Ein Häkchen ![[obsidian-icon-sync-synced.svg#icon]] in der Ecke.", "Ein Häkchen in der Ecke."),
        ("![[help-support-console-menu.png#interface|600]]", ""),
        (
            "Select ![[lucide-plus.svg#icon]] **Add**, then see [[Plans|Sync plan]].",
            "Select **Add**, then see Sync plan.",
        ),
    ],
)
def test_an_embedded_file_is_drawn_not_named(written: str, shown: str) -> None:
    """Seen in the browser (stop 53, sixth file row 2): "lucide-book-icon.svg Eklenti panelindeki Kitap simgesi."
    The page draws the icon; its file name, or an image's width ("600"), is no word a reader reads there."""
    assert shown_links(written) == shown


def test_an_embedded_page_and_a_link_to_a_file_keep_their_names() -> None:
    assert shown_links("See ![[Daily notes]] and [[report.pdf]].") == "See Daily notes and report.pdf."
