"""The status markers drive the loop, the cap holds, and calls written as text are run and said to be lenient.

A scripted model forces each behaviour; the tools are the real ones over a real indexed vault.
"""

from __future__ import annotations

import json

from sentinel.chat.loop import Ending, cap_message
from sentinel.chat.render import turn_footer
from sentinel.tools.policy import Status
from tests.support.chat_session import MakeSession, answer, call, calls, command_output, rendered
from tests.support.scripted import ChatRequest


def tool_results(request: ChatRequest) -> list[str]:
    return [str(message["content"]) for message in request.messages if message["role"] == "tool"]


def test_done_from_search_ends_the_search_chain(make_session: MakeSession) -> None:
    session, model = make_session(
        [
            call("search", query="zebra husbandry"),  # nothing matches: [DONE]
            call("search", query="zebra care"),  # the model searches on anyway
            answer("The vault does not cover zebras."),
        ]
    )
    turn = session.ask("how do I keep zebras?")
    first, second = turn.steps
    assert first.ran and first.status is Status.DONE
    assert not second.ran and second.status is Status.DONE
    assert "searching ended in this turn (search answered [DONE] at step 1)" in second.output
    # What the model read before answering: the refusal, as a tool result, telling it what to do instead.
    assert tool_results(model.requests[-1])[-1] == second.output
    assert turn.answer == "The vault does not cover zebras." and turn.ending is Ending.ANSWERED
    assert model.pending == 0


def test_a_repeated_search_is_answered_done_and_ends_the_chain(make_session: MakeSession) -> None:
    session, model = make_session(
        [
            call("search", query="growth queue"),
            call("search", query="growth queue"),  # the same search again: the registry answers [DONE]
            call("search", query="queue of names"),  # and the chain is over
            answer("It lists names no page answers to (notes/Growth queue.md)."),
        ]
    )
    turn = session.ask("what is the growth queue?")
    assert [(step.ran, step.status) for step in turn.steps] == [
        (True, Status.OK),
        (True, Status.DONE),
        (False, Status.DONE),
    ]
    assert "] Growth queue (" in turn.steps[0].output  # the summary rung names the page as read takes it
    assert "already ran this exact search" in turn.steps[1].output
    assert model.pending == 0


def test_more_may_be_followed_after_the_chain_ended(make_session: MakeSession) -> None:
    session, model = make_session(
        [
            call("search", query="sync", rung="body"),
            call("search", query="zebra husbandry"),  # [DONE]: no further search ...
            call("search", query="sync", rung="body", cursor=1),  # ... except the continuation [more] offered
            call("search", query="sync encryption"),
            answer("Sync encrypts end to end and derives its key with scrypt."),
        ]
    )
    session.ctx.settings.search_hits = 1
    turn = session.ask("how does sync protect my notes?")
    more, done, continued, refused = turn.steps
    assert more.status is Status.MORE and "cursor=1)" in more.output.splitlines()[0]
    assert done.status is Status.DONE
    assert continued.ran and continued.status in (Status.OK, Status.MORE)
    assert not refused.ran and refused.status is Status.DONE
    assert model.pending == 0
    # /steps shows each status, [more] included (console markup must not swallow it).
    rows = [line for line in command_output(session, "/steps").splitlines() if " search " in line]
    assert "[more]" in rows[0] and all(str(step.status) in row for step, row in zip(turn.steps, rows, strict=True))


def test_retry_is_allowed_once_then_the_tool_is_closed_for_the_turn(make_session: MakeSession) -> None:
    session, model = make_session(
        [
            call("read", page="notes/Sync.md"),  # wrong argument name: [RETRY] naming the right ones
            call("read", page="notes/Sync.md"),  # the one retry it gets, wrong again
            call("read", path="notes/Sync.md"),  # closed now, even though this one is right
            answer("I could not read the page."),
        ],
        retries_per_tool=1,
    )
    turn = session.ask("read my sync note")
    assert [(step.ran, step.status) for step in turn.steps] == [
        (True, Status.RETRY),
        (True, Status.RETRY),
        (False, Status.STOP),
    ]
    assert "it takes: path, depth, section, cursor" in turn.steps[0].output
    assert "read answered [RETRY] 2 times in this turn" in turn.steps[2].output
    assert model.pending == 0


def test_the_cap_is_stated_when_reached_and_then_no_tools_are_offered(make_session: MakeSession) -> None:
    session, model = make_session(
        [
            call("listing", folder="notes"),
            calls(
                ("graph", {"target": "Sync"}), ("listing", {"folder": "sources"}), ("read", {"path": "notes/Sync.md"})
            ),
            answer("Your notes cover sync and the growth queue."),
        ],
        max_tool_calls=3,
    )
    turn = session.ask("what is in my vault?")
    assert [step.ran for step in turn.steps] == [True, True, True, False]
    # Call 3 of 3 runs; the fourth, in the same reply, is refused with the cap named.
    assert turn.steps[3].status is Status.STOP and "cap of 3 tool calls" in turn.steps[3].output
    # The request after the cap offers no tools, and says so in a message of its own: the model can only answer.
    assert [request.tools is not None for request in model.requests] == [True, True, False]
    assert model.requests[2].messages[-1] == cap_message(3)
    assert str(cap_message(3)["content"]).startswith("No more tool calls: the cap of 3 for one answer is reached.")
    assert cap_message(3) not in session.messages  # said to the model, never part of the conversation
    assert turn.ending is Ending.ANSWERED and turn.answer.startswith("Your notes cover")
    assert model.pending == 0
    # Accounting: the schemas were sent twice, not three times, and /budget says the last request had none.
    usage = session.session_usage()
    assert (usage.calls, usage.calls_with_schemas, usage.schema_share(session.schema_cost)) == (3, 2, 4000)
    assert "the last request offered no tools (the cap was reached)" in command_output(session, "/budget")


def test_a_call_written_as_the_answer_after_the_cap_is_not_run_and_is_said(make_session: MakeSession) -> None:
    written = '{"name": "search", "arguments": {"query": "sync"}}'
    session, model = make_session([call("listing"), written], max_tool_calls=1)
    turn = session.ask("list everything")
    assert [step.ran for step in turn.steps] == [True]
    assert turn.ending is Ending.CAP and turn.answer == written
    assert model.requests[1].tools is None and model.pending == 0
    footer = rendered(turn_footer(turn, session.schema_cost, session.budget()))
    assert "after the cap, with no tools offered, the model asked for a tool instead of answering" in footer


def test_tool_calls_returned_although_no_tools_were_offered_are_refused(make_session: MakeSession) -> None:
    session, model = make_session(
        [call("listing"), call("graph", target="Sync"), answer("never asked for")], max_tool_calls=1
    )
    turn = session.ask("list everything")
    assert [step.ran for step in turn.steps] == [True, False]
    assert turn.ending is Ending.CAP and turn.answer == ""
    assert len(model.requests) == 2 and model.pending == 1  # the loop ended; the model was not asked again
    # The history stays well formed: every call the model made has its tool result.
    assert sum(1 for message in session.messages if message["role"] == "tool") == 2


def test_a_tool_call_written_as_json_in_the_text_is_run_and_called_lenient(make_session: MakeSession) -> None:
    written = '```json\n{"name": "search", "arguments": {"query": "growth queue"}}\n```'
    session, model = make_session([written, answer("It lists names no page answers to.")])
    turn = session.ask("what is the growth queue?")
    (step,) = turn.steps
    assert step.lenient and step.ran and step.status is Status.OK
    assert "] Growth queue (" in step.output
    assert turn.lenient_steps == 1
    # The history carries the call in the tool-call field, not a second time as text.
    call_message = model.requests[1].messages[-2]
    assert call_message["content"] == "" and call_message["tool_calls"][0]["function"]["name"] == "search"
    assert json.loads(call_message["tool_calls"][0]["function"]["arguments"]) == {"query": "growth queue"}
    assert "lenient" in command_output(session, "/steps")


def test_every_request_sends_the_seven_schemas(make_session: MakeSession) -> None:
    session, model = make_session([call("listing"), answer("done")])
    session.ask("list")
    for request in model.requests:
        names = [schema["function"]["name"] for schema in request.tools or []]
        assert names == ["search", "read", "listing", "graph", "write", "relocate", "remove"]
