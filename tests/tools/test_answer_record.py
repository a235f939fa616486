"""The record of what each answer rested on (answer/record.py): bounded per chat and in chats, and written only
by a door that can save."""

from __future__ import annotations

import os

import pytest

from sentinel.answer import Turn, answer_turn, record
from sentinel.answer.result import Citation
from sentinel.paths import answer_record_dir
from tests.support.scripted import ScriptedProvider
from tests.support.tool_context import MakeContext

VAULT = {"notes/Tea.md": "# Tea\n\nGenmaicha is brewed at 80 degrees for three minutes.\n"}
CITED = [Citation("notes/Tea.md", "Tea", "Genmaicha is brewed at 80 degrees for three minutes.")]


def test_a_read_only_door_records_nothing(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    asked = [{"role": "user", "content": "How long is genmaicha brewed?"}]
    read_only = answer_turn(ctx, ScriptedProvider([]), Turn(asked, chat_id="reader", can_write=False))
    assert read_only.rests_on  # it rested on something, and still nothing is written
    assert not answer_record_dir(ctx.settings).exists()
    answer_turn(ctx, ScriptedProvider([]), Turn(asked, chat_id="writer"))
    assert len(list(answer_record_dir(ctx.settings).glob("*.json"))) == 1


def test_only_the_most_recently_answered_chats_keep_their_record(
    make_ctx: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_ctx(VAULT).settings
    monkeypatch.setattr(record, "KEPT_CHATS", 3)
    for number in range(5):
        record.remember(settings, f"chat-{number}", f"answer {number}", CITED)
        answered = number * 10**9  # the earlier the chat, the longer ago it was answered
        os.utime(record._file(settings, f"chat-{number}"), ns=(answered, answered))
    kept = [n for n in range(5) if record.rested_on(settings, f"chat-{n}", f"answer {n}")]
    assert kept == [2, 3, 4]
    assert len(list(answer_record_dir(settings).glob("*.json"))) == 3


def test_a_chat_keeps_its_last_answers_only(make_ctx: MakeContext, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = make_ctx(VAULT).settings
    monkeypatch.setattr(record, "KEPT_ANSWERS", 2)
    for number in range(3):
        record.remember(settings, "chat", f"answer {number}", CITED)
    assert [bool(record.rested_on(settings, "chat", f"answer {n}")) for n in range(3)] == [False, True, True]
