"""A saved note's record line: the one shape it is written in, its label in each language, and the one test that reads
it.

A save (``tools.capture``) ends the note with a line pointing at the conversation's transcript ("Record:
[[2026-12-06-3]]"). It says where the transcript is, never what the note says, so whatever reads a note's text as its
content must know it: an answer never quotes it or keeps it as a sentence (``answer.pipeline``), and ``sentinel trace``
follows it to the transcript (``maintain.trace``). Its label is the ``record_label`` setting when one is set; else the
language of the person's request to save, decided here on every path (seen in Open WebUI after stop 46: a Turkish note
ended "Record: [[2026-12-06-1]]" in English; after stop 47 still so when the model itself called the save tool, which
passed no language). A note saved in one language is read in a chat in any other, so every reader recognises every
language's label (and the setting's), through ``is_record_line`` and ``record_target`` here.
"""

from __future__ import annotations

import re

from sentinel.settings import Settings
from sentinel.vault.language import request_language

# The label of the record line in each language a save replies in (answer.save_replies, answer.lines).
LABELS = {"en": "Record:", "de": "Protokoll:", "es": "Registro:", "tr": "Kayıt:"}
# A transcript's own name, as capture names a new one (<date>-<n>): the only bare word a model's copy of the line
# ("Record: 2026-12-06-3") is read as, so "Registro: obligatorio" in a page stays a sentence.
_TRANSCRIPT_NAME = r"\d{4}-\d{2}-\d{2}-\d+"


def record_label(settings: Settings, request: str) -> str:
    """The label a new record line is written with: the ``record_label`` setting when the person set one (it
    wins), else the language of ``request``, the person's words that asked to save (``language.request_language``;
    English for a language without its own label). Every save path labels its note here."""
    return settings.record_label.strip() or LABELS.get(request_language(request), LABELS["en"])


def record_line(label: str, transcript_name: str) -> str:
    """The line that points a note at its transcript ("Record: [[2026-12-06-3]]")."""
    return f"{label} [[{transcript_name}]]"


def _labels(setting: str) -> str:
    """Every label a record line may carry, as one regex alternation: the setting's and each language's."""
    labels = {setting.strip(), *LABELS.values()} - {""}
    return "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))


def record_target(setting: str, line: str) -> str | None:
    """The transcript a note's record line names, as the note has it ("Kayıt: [[2026-12-06-1]]" gives
    "2026-12-06-1"); None when ``line`` is not a record line. ``setting``: the ``record_label`` setting."""
    found = re.fullmatch(rf"\s*(?:{_labels(setting)})\s*\[\[([^|\]]+)(?:\|[^\]]*)?\]\]\s*", line)
    return found.group(1).strip() if found else None


def is_record_line(setting: str, text: str) -> bool:
    """Whether ``text`` is a note's record line (where its transcript is: never what the note says), in any
    language's label or the setting's, as the note has it ("Record: [[2026-12-06-3]]") or as a model writes it
    back ("Record: 2026-12-06-3", seen in Open WebUI). ``setting``: the ``record_label`` setting."""
    if record_target(setting, text) is not None:
        return True
    return bool(re.fullmatch(rf"\s*(?:{_labels(setting)})\s*{_TRANSCRIPT_NAME}\s*", text))
