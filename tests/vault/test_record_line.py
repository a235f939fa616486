"""A saved note's record line (``vault.record_line``): written with the setting's label or the save's language's,
and recognised in every language's label wherever it is read (seen in Open WebUI after stop 46: a Turkish note
ended "Record: [[2026-12-06-1]]" in English)."""

from __future__ import annotations

import pytest

from sentinel.settings import Settings
from sentinel.vault.record_line import LABELS, is_record_line, record_label, record_line, record_target


@pytest.mark.parametrize(("language", "label"), [("tr", "Kayıt:"), ("de", "Protokoll:"), ("es", "Registro:")])
def test_with_no_label_set_the_line_is_labelled_in_the_saves_language(
    tmp_path: pytest.TempPathFactory, language: str, label: str
) -> None:
    settings = Settings(vault=tmp_path)
    assert settings.record_label == ""  # the default: nothing set
    assert record_label(settings, language) == label
    assert record_label(settings, "fr") == "Record:"  # a language without its own label: English


def test_a_label_the_person_set_wins_in_every_language(tmp_path: pytest.TempPathFactory) -> None:
    settings = Settings(vault=tmp_path, record_label="Record:")
    assert {record_label(settings, language) for language in LABELS} == {"Record:"}


@pytest.mark.parametrize("label", sorted({*LABELS.values(), "Chat:"}))
def test_every_label_is_read_as_a_record_line_as_written_and_as_a_model_copies_it(label: str) -> None:
    line = record_line(label, "2026-12-06-3")
    assert record_target("Chat:", line) == "2026-12-06-3"  # "Chat:": a label the person set
    assert is_record_line("Chat:", line) and is_record_line("Chat:", f"{label} 2026-12-06-3")
    assert is_record_line("", f"  {label} [[2026-12-06-3|the chat]] ") is (label in LABELS.values())


@pytest.mark.parametrize(
    "text",
    [
        "Registro: obligatorio",  # a page's own sentence under a label's word
        "Protokoll: [[Meeting]] and more",
        "Record: 2026-12-06-3 was a good day",
        "Notes: 2026-12-06-3",  # no label at all: the empty setting is no label
        "Chat: 2026-12-06-3",  # a label nobody set
    ],
)
def test_a_line_that_only_looks_like_one_is_no_record_line(text: str) -> None:
    assert not is_record_line("", text) and record_target("", text) is None
