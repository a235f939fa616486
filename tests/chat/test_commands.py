"""/steps, /budget, /reset, /save and the accounting behind them, over a scripted model and the real tools."""

from __future__ import annotations

import pytest

from sentinel.chat.accounting import measure_schema_cost
from sentinel.chat.commands import parse_command
from sentinel.providers import ChatResult, ProviderError, Timings
from sentinel.tools.registry import tool_schemas
from tests.support.chat_session import MakeSession, answer, call, command_output
from tests.support.scripted import ChatRequest, ScriptedProvider

QUESTION = "what is the growth queue?"
ANSWER = "The growth queue lists names no page answers to yet (notes/Growth queue.md)."


def cells(table: str, label: str) -> list[str]:
    """The tokens and share columns of the /budget row named ``label``."""
    (line,) = [line for line in table.splitlines() if line.strip().startswith(label)]
    return line.split()[-2:]


def test_steps_lists_the_last_turns_calls_with_their_statuses(make_session: MakeSession) -> None:
    session, _ = make_session(
        [call("search", query="growth queue"), call("search", query="growth queue"), answer(ANSWER)]
    )
    assert command_output(session, "/steps") == "no turn yet in this context\n"
    session.ask(QUESTION)
    table = command_output(session, "/steps")
    assert "turn 1: tool calls" in table
    rows = [line for line in table.splitlines() if "search" in line]
    assert "[OK]" in rows[0] and "ran" in rows[0] and 'query="growth queue"' in rows[0]
    assert "[DONE]" in rows[1]
    whole = command_output(session, "/steps 1")
    assert "] Growth queue (" in whole and "step 1: search" in whole
    assert "no step 7: the last turn has 2 step(s)" in command_output(session, "/steps 7")
    assert "takes a step number" in command_output(session, "/steps all")


def test_budget_shows_the_window_as_the_server_counted_it(make_session: MakeSession) -> None:
    session, _ = make_session([call("search", query="growth queue"), answer(ANSWER, prompt_tokens=3000)])
    before = command_output(session, "/budget")
    assert "context window 8,192 tokens" in before
    assert cells(before, "in context now") == ["2,500", "31%"]  # at the start: schemas 2000 + system prompt 500
    session.ask(QUESTION)
    after = command_output(session, "/budget")
    # In context: the last reply's prompt (3000) plus what it generated (40); the rest is the conversation.
    assert cells(after, "in context now") == ["3,040", "37%"]
    assert cells(after, "tool schemas (7)") == ["2,000", "24%"]
    assert cells(after, "system prompt + template") == ["500", "6%"]
    assert cells(after, "conversation") == ["540", "7%"]
    assert cells(after, "free") == ["5,152", "63%"]
    # Session: 2 model calls, each re-sending the schemas: 4000 of 5600 prompt tokens.
    assert "session: 1 turn(s), 2 model call(s); prompt 5,600 (schemas 4,000 = 71%), completion 60" in after
    assert "load 0.1s prefill 0.5s generation 0.9s" in after


def test_usage_missing_from_the_endpoint_is_said_not_guessed(make_session: MakeSession) -> None:
    no_usage = ChatResult(content="An answer.", timings=Timings(total_s=2.0), finish_reason="stop")
    session, _ = make_session([no_usage])
    session.ask(QUESTION)
    text = command_output(session, "/budget")
    assert "unknown" in text
    assert "1 call(s) reported no usage and are not counted" in text
    assert "2.0s wall clock (the endpoint gives no load/prefill/generation split)" in text


def test_reset_starts_a_new_context_and_keeps_session_totals(make_session: MakeSession) -> None:
    session, model = make_session([call("search", query="growth queue"), answer(ANSWER), answer("Hello.")])
    session.ask(QUESTION)
    first_chat = session.chat_id
    assert "new context" in command_output(session, "/reset")
    assert session.chat_id != first_chat
    assert [message["role"] for message in session.messages] == ["system"]
    assert command_output(session, "/steps") == "no turn yet in this context\n"
    session.ask("hello")
    assert [message["role"] for message in model.requests[-1].messages] == ["system", "user"]
    assert session.session_usage().calls == 3
    assert "session: 2 turn(s), 3 model call(s)" in command_output(session, "/budget")


def test_save_captures_transcript_and_note_as_the_api_does(make_session: MakeSession) -> None:
    session, _ = make_session([call("search", query="growth queue"), answer(ANSWER), answer("Noted.")])
    vault = session.ctx.settings.vault
    session.ask(QUESTION)
    said = command_output(session, "/save Queue answers")
    assert said.startswith("[OK] created notes/Queue answers.md; conversation recorded verbatim in conversations/")
    (transcript,) = (vault / "conversations").glob("*.md")
    text = transcript.read_text()
    assert f"chat_id: {session.chat_id}" in text
    assert f"## user\n\n{QUESTION}" in text and f"## assistant\n\n{ANSWER}" in text
    # The conversation, not the machinery: no system prompt, no tool traffic.
    assert "## system" not in text and "## tool" not in text and "[OK]" not in text
    note = (vault / "notes/Queue answers.md").read_text()
    assert note == f"{ANSWER}\n\nRecord: [[{transcript.stem}]]\n"

    session.ask("thanks")
    again = command_output(session, "/save Queue answers | Revived links come alive in one UPDATE.")
    assert again.startswith("[OK] appended to notes/Queue answers.md")
    assert list((vault / "conversations").glob("*.md")) == [transcript]
    assert "## user\n\nthanks" in transcript.read_text()  # the transcript is refreshed on every save
    note = (vault / "notes/Queue answers.md").read_text()
    assert note.count("Record:") == 1 and "Revived links come alive in one UPDATE." in note


def test_save_after_reset_records_a_new_conversation(make_session: MakeSession) -> None:
    session, _ = make_session([answer("First."), answer("Second.")])
    session.ask("one")
    command_output(session, "/save Topic")
    session.reset()
    session.ask("two")
    command_output(session, "/save Topic")
    vault = session.ctx.settings.vault
    assert len(list((vault / "conversations").glob("*.md"))) == 2
    assert (vault / "notes/Topic.md").read_text().count("Record:") == 2


def test_save_without_subject_or_conversation_is_refused_clearly(make_session: MakeSession) -> None:
    session, _ = make_session([])
    assert "/save needs a subject" in command_output(session, "/save")
    assert "[RETRY] messages is empty" in command_output(session, "/save Topic")
    assert not (session.ctx.settings.vault / "notes/Topic.md").exists()


def test_commands_parse_and_unknown_ones_are_named(make_session: MakeSession) -> None:
    session, _ = make_session([])
    assert parse_command("what is /steps?") is None
    assert parse_command("  /SAVE My topic | text ") == parse_command("/save My topic | text")
    assert "unknown command /undo; the commands are /steps, /budget" in command_output(session, "/undo")
    assert "/budget" in command_output(session, "/help")


def test_a_failed_model_call_leaves_the_history_as_it_was(make_session: MakeSession) -> None:
    session, _ = make_session([call("listing")])  # the second request finds no reply: ProviderError
    with pytest.raises(ProviderError):
        session.ask("list my notes")
    assert [message["role"] for message in session.messages] == ["system"]
    assert session.turns == []


def test_schema_cost_is_the_servers_count_with_minus_without_the_schemas() -> None:
    def count(request: ChatRequest) -> ChatResult:
        tokens = 480 + (2210 if request.tools else 0)
        return ChatResult(content=".", prompt_tokens=tokens, completion_tokens=1)

    model = ScriptedProvider([count, count])
    cost = measure_schema_cost(model, "You answer from the vault.", tool_schemas())
    assert (cost.schema_tokens, cost.base_tokens, cost.start_tokens) == (2210, 480, 2690)
    assert [request.tools is None for request in model.requests] == [True, False]  # bare first, then the schemas
    assert all(request.max_tokens == 1 for request in model.requests)

    blind = measure_schema_cost(ScriptedProvider([ChatResult("."), ChatResult(".")]), "x", tool_schemas())
    assert blind.schema_tokens is None and "reports no token usage" in blind.how
