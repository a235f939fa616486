"""A saved note's record line (``vault.record_line``): written with the setting's label or the save request's
language's, and recognised in every language's label wherever it is read (seen in Open WebUI after stop 46: a Turkish
note ended "Record: [[2026-12-06-1]]" in English)."""

from __future__ import annotations

import pytest

from sentinel.settings import Settings
from sentinel.vault.record_line import LABELS, is_record_line, record_label, record_line, record_target


@pytest.mark.parametrize(
    ("request_words", "label"),
    [
        ("bunu kaydet", "Kayıt:"),
        ("speichere das", "Protokoll:"),
        ("guarda esto", "Registro:"),
        ("Save this: the spare key is in the shed", "Record:"),
        # no save verb (a model that called the save tool on its own): what the words show
        ("Was habe ich über die Erstattung gesagt?", "Protokoll:"),
        ("¿Qué dice la nota diaria?", "Registro:"),
    ],
)
def test_with_no_label_set_the_line_is_labelled_in_the_requests_language(
    tmp_path: pytest.TempPathFactory, request_words: str, label: str
) -> None:
    settings = Settings(vault=tmp_path)
    assert settings.record_label == ""  # the default: nothing set
    assert record_label(settings, request_words) == label
    assert record_label(settings, "merci") == "Record:"  # words of no language with its own label: English


def test_a_label_the_person_set_wins_in_every_language(tmp_path: pytest.TempPathFactory) -> None:
    settings = Settings(vault=tmp_path, record_label="Record:")
    requests = ["bunu kaydet", "speichere das", "guarda esto", "save this"]
    assert {record_label(settings, request) for request in requests} == {"Record:"}


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
