"""The tool-call repair layer on recorded outputs of real model families, and through the real API's gateway
(OpenAI and Ollama dialects, streamed and not) with a loopback node that streams a recorded answer.

Recorded outputs: the Qwen2.5-Coder 0.5B ones were recorded here from llama.cpp (``--jinja``, Sentinel's tools
and system prompt, temperature 0; streamed pieces as the server cut them; free, and under the gateway's call
schema). The other families' are the forms
their chat templates document and that their users report in issues (Hermes/Qwen 7B tags, Llama 3.1
``<|python_tag|>``, Llama 3.2 bare JSON with ``parameters``, Mistral ``[TOOL_CALLS]`` in both its list and its
``name[ARGS]`` shape): no model of those families runs on this machine.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from redis import Redis

from sentinel.providers.toolcalls import parse_text_tool_calls, without_call_text
from sentinel.research import TOOL_NAME
from sentinel.tools.first_call import opening
from sentinel.tools.registry import tool_schemas
from sentinel_pool.registry import BackendRecord, NodeRecord, PoolKeys, publish
from sentinel_pool.repair import (
    CALL_SCHEMA,
    CUT_NOTE,
    NOT_RUN,
    NOT_RUN_NOTE,
    StreamRepair,
    constrain_call,
    offered_tools,
    repair_answer,
)
from tests.pool.nodes import completion, recorded_node, stream_payloads

TOOLS = offered_tools({"tools": tool_schemas()})
assert TOOLS is not None
MODEL = "recorded"

# Qwen2.5-Coder 0.5B on llama.cpp, "What does my vault say about the growth queue?" (streamed, as cut).
QWEN_PIECES = [
    '{"', "name", '":', ' "', "listing", '",', ' "', "arguments", '":', ' {"', "folder", '":', ' "', "notes",
    '",', ' "', "filter", '":', ' "', "type", ":", "concept", '",', ' "', "cursor", '":', " ", "0", "}}",
]  # fmt: skip
QWEN_BARE = "".join(QWEN_PIECES)

FAMILIES = {
    "qwen2.5-coder-0.5b, bare": (QWEN_BARE, "bare", "listing"),
    "qwen2.5-coder-0.5b, fenced": (
        'I will search.\n```json\n{\n  "name": "search",\n  "arguments": {"query": "sync pricing"}\n}\n```',
        "fenced",
        "search",
    ),
    "qwen2.5-coder-0.5b, under the gateway's call schema": (
        '{\n  "name": "read",\n  "arguments": {\n    "path": "notes/Topic.md",\n    "depth": "outline"\n  }\n}',
        "bare",
        "read",
    ),
    "hermes / qwen2.5-7b, tags": (
        '<tool_call>\n{"name": "search", "arguments": {"query": "growth queue"}}\n</tool_call>',
        "tagged",
        "search",
    ),
    "llama-3.1, python_tag": (
        '<|python_tag|>{"name": "search", "parameters": {"query": "growth queue"}}<|eom_id|>',
        "python_tag",
        "search",
    ),
    "llama-3.2, bare with parameters": ('{"name": "read", "parameters": {"path": "notes/Pool.md"}}', "bare", "read"),
    "mistral, list": (
        '[TOOL_CALLS][{"name": "search", "arguments": {"query": "growth queue"}}]',
        "mistral",
        "search",
    ),
    "mistral v11, name[ARGS]": ('[TOOL_CALLS]search[ARGS]{"query": "growth queue"}', "mistral", "search"),
}

STAYS_TEXT = {
    "a tool not offered": ('```json\n{"name": "delete_everything", "arguments": {}}\n```', "unknown_tool"),
    "a required argument missing": ('{"name": "search", "arguments": {"q": "growth"}}', "invalid_arguments"),
    "an argument of the wrong type": ('<tool_call>{"name": "read", "arguments": {"path": 7}}</tool_call>',
                                      "invalid_arguments"),
    "arguments that are not JSON": ('{"name": "search", "arguments": "query=growth"}', "text"),
    "an answer that is JSON": ('{"summary": "A page about sync.", "concepts": ["Sync"]}', "text"),
    "a made-up tool name (qwen2.5-coder-0.5b)": (
        '{"name": "guest_wifi_network", "arguments": {"query": "guest_wifi_network", "rung": "summary", '
        '"cursor": 0}}. The guest wifi network is called "guest_wifi_network".',
        "unknown_tool",
    ),
    # after a [DONE] (the calls as the API logged them; the text in the shape the model writes its calls)
    "several calls in one text (qwen2.5-coder-0.5b)": (
        '[{"name": "graph", "arguments": {"target": "growth queue"}}, {"name": "listing", "arguments": '
        '{"folder": "notes"}}, {"name": "relocate", "arguments": {"source": "/notes/growth_queue.md", '
        '"destination": "/notes/development_queue.md"}}, {"name": "remove", "arguments": {"path": '
        '"/notes/growth_queue.md"}}, {"name": "search", "arguments": {"query": "growth queue"}}]',
        "several_calls",
    ),
    "prose": ("The growth queue lists names no page defines yet; see [[Maintenance]].", "text"),
}  # fmt: skip


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_s_written_call_becomes_a_call(family: str) -> None:
    text, form, tool = FAMILIES[family]
    found = parse_text_tool_calls(text, TOOLS)
    assert [call.name for call in found.calls] == [tool] and found.form == form
    answer, verdict = repair_answer(_completion(text), TOOLS)
    choice = answer["choices"][0]
    assert verdict.outcome == "repaired" and choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("call_") and call["function"]["name"] == tool
    assert json.loads(call["function"]["arguments"]) == found.calls[0].arguments


def test_the_prose_around_a_call_is_kept_as_content() -> None:
    answer, _ = repair_answer(_completion(FAMILIES["qwen2.5-coder-0.5b, fenced"][0]), TOOLS)
    assert answer["choices"][0]["message"]["content"] == "I will search."
    bare, _ = repair_answer(_completion(QWEN_BARE), TOOLS)
    assert bare["choices"][0]["message"]["content"] is None


@pytest.mark.parametrize("case", STAYS_TEXT)
def test_text_that_is_no_valid_call_to_an_offered_tool_is_not_run(case: str) -> None:
    text, outcome = STAYS_TEXT[case]
    answer, verdict = repair_answer(_completion(text), TOOLS)
    assert verdict.outcome == outcome and "tool_calls" not in answer["choices"][0]["message"]
    shown = answer["choices"][0]["message"]["content"]
    if outcome in NOT_RUN:  # call-shaped text that is not run is never shown to a person
        assert '"name"' not in shown and "```" not in shown and "<tool_call>" not in shown
        assert shown == (without_call_text(text) or NOT_RUN_NOTE)
    else:
        assert answer == _completion(text)


def test_the_prose_beside_a_call_that_is_not_run_is_still_shown() -> None:
    text, _ = STAYS_TEXT["a made-up tool name (qwen2.5-coder-0.5b)"]
    answer, _ = repair_answer(_completion(text), TOOLS)
    assert answer["choices"][0]["message"]["content"] == 'The guest wifi network is called "guest_wifi_network".'


def test_a_call_to_a_tool_offered_elsewhere_but_not_in_this_request_stays_text() -> None:
    only_read = offered_tools({"tools": [t for t in tool_schemas() if t["function"]["name"] == "read"]})
    assert only_read is not None
    _, verdict = repair_answer(_completion(FAMILIES["hermes / qwen2.5-7b, tags"][0]), only_read)
    assert verdict.outcome == "unknown_tool"


def test_native_calls_pass_untouched() -> None:
    native = _completion(None) | {}
    native["choices"][0]["message"]["tool_calls"] = [{"id": "x", "type": "function", "function": {"name": "read"}}]
    answer, verdict = repair_answer(native, TOOLS)
    assert answer is native and verdict.outcome == "native"


def test_a_stream_holds_a_call_back_and_ends_with_one_tool_calls_delta() -> None:
    repair = StreamRepair(TOOLS)
    out = [json.loads(data) for piece in _chunks(QWEN_PIECES) for data in repair.feed(piece) if data != "[DONE]"]
    assert not any(choice["delta"].get("content") for event in out for choice in event["choices"])
    deltas = [choice["delta"] for event in out for choice in event["choices"]]
    (calls,) = [delta["tool_calls"] for delta in deltas if "tool_calls" in delta]
    assert calls[0]["index"] == 0 and calls[0]["function"]["name"] == "listing"
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert repair.verdict is not None and repair.verdict.outcome == "repaired"


def test_a_stream_of_prose_is_released_as_it_comes() -> None:
    repair = StreamRepair(TOOLS)
    pieces = ["The growth", " queue {lists} names", " no page [[defines]] yet", " `"]
    released: list[str] = []
    for event in _chunks(pieces):
        for data in repair.feed(event):
            if data != "[DONE]":
                released.extend(c["delta"]["content"] for c in json.loads(data)["choices"] if c["delta"].get("content"))
    assert released[:3] == ["The growth", " queue {lists} names", " no page [[defines]] yet"]  # nothing waited
    assert "".join(released) == "".join(pieces)  # the held back-tick was released at the end: nothing lost
    assert repair.verdict is not None and repair.verdict.outcome == "text"


def test_an_answer_cut_at_max_tokens_says_so_streamed_and_not() -> None:
    """A 0.5B model capped at max_tokens stops mid-sentence; the reader is told, in the answer itself."""
    rambling = ["The backups run", " nightly, and the", " backups run nightly, and"]
    cut, verdict = repair_answer(completion("".join(rambling), finish_reason="length"), TOOLS)
    assert cut["choices"][0]["message"]["content"] == "".join(rambling) + CUT_NOTE and verdict.outcome == "text"
    repair = StreamRepair(TOOLS)
    payloads = stream_payloads(rambling, MODEL, "length")
    events = [json.loads(data) for payload in payloads for data in repair.feed(payload) if data != "[DONE]"]
    said = "".join(c["delta"].get("content") or "" for event in events for c in event["choices"])
    assert said == "".join(rambling) + CUT_NOTE and events[-1]["choices"][0]["finish_reason"] == "length"
    whole, _ = repair_answer(completion("The backups run nightly."), TOOLS)
    assert CUT_NOTE not in whole["choices"][0]["message"]["content"]  # an answer that ended is left as it is


def _completion(content: str | None) -> dict[str, Any]:
    return completion(content)


def _chunks(pieces: list[str]) -> list[str]:
    return stream_payloads(pieces, MODEL)


QUESTION = {"role": "user", "content": "What about the growth queue?"}
FIRST = {"model": MODEL, "messages": [QUESTION], "tools": tool_schemas()}  # a turn's first round
# A later round of the turn (a tool result came back): the model may answer, so nothing constrains it.
ASK = FIRST | {"messages": [QUESTION, {"role": "tool", "content": "[OK] 1 page\n- notes/Growth queue.md"}]}


def _call_names(body: dict[str, Any]) -> list[str]:
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == CALL_SCHEMA
    calls = schema["schema"].get("oneOf", [schema["schema"]])
    return [call["properties"]["name"]["const"] for call in calls]


def test_a_turn_s_first_answer_is_constrained_to_the_offered_calls() -> None:
    constrained = constrain_call(FIRST, first_call=opening)
    # the primitives that change a page need a path from a tool result: never a turn's first call; those that
    # take a page or a folder (read, listing, graph) only when the user's words name one
    assert _call_names(constrained) == ["search"]
    search = constrained["response_format"]["json_schema"]["schema"]  # one call: no oneOf
    # a first call has no result to take a cursor from: the schema leaves it out and admits no other argument
    arguments = search["properties"]["arguments"]
    assert set(arguments["properties"]) == {"query", "rung"} and arguments["additionalProperties"] is False
    assert arguments["required"] == ["query"] and search["required"] == ["name", "arguments"]
    assert constrained["messages"] == FIRST["messages"] and constrained["tools"] == FIRST["tools"]


@pytest.mark.parametrize(
    "words", ["Open notes/Backups.md please", "What links to [[Growth queue]]?", "Summarise Backups.md", "List notes/"]
)
def test_a_first_call_may_need_a_page_when_the_user_names_one(words: str) -> None:
    named = FIRST | {"messages": [{"role": "user", "content": [{"type": "text", "text": words}]}]}
    assert _call_names(constrain_call(named, first_call=opening)) == ["search", "read", "listing", "graph"]


# The research tool as Open WebUI sends it (tool/openwebui_research_tool.py; its spec: tests/openwebui).
RESEARCH = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Research a question on the web, ONLY when the user asks for web research.",
        "parameters": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
    },
}


def _with_research(words: str) -> dict[str, Any]:
    return FIRST | {"messages": [{"role": "user", "content": words}], "tools": [*tool_schemas(), RESEARCH]}


@pytest.mark.parametrize(
    "words",
    [
        "Research on the web: how do I restore a note from a snapshot?",
        "Look this up online: where are snapshots kept?",
        "Recherchiere im Web: Wie stelle ich eine Notiz wieder her?",
        "Such im Internet nach Dateiwiederherstellung",
        "Investiga en la web: ¿cómo restauro una nota?",
        "Busca en internet las instantáneas",
        "Web'de araştır: notu nasıl geri yüklerim?",
        "İnternette ara: anlık görüntüler nerede?",
        "What does https://help.obsidian.md/file-recovery say about snapshots?",  # (a URL names a place too)
    ],
)
def test_a_first_call_may_be_research_when_the_user_s_words_name_the_web(words: str) -> None:
    names = _call_names(constrain_call(_with_research(words), first_call=opening))
    assert names[0] == "search" and names[-1] == TOOL_NAME and not set(names) & {"write", "relocate", "remove"}


@pytest.mark.parametrize(
    "words",
    [
        "When is my vault backed up, and where to?",
        "Was steht in meinen Notizen über die Sicherung?",
        "¿Qué dicen mis notas sobre las copias de seguridad?",
        "Notlarım yedekleme hakkında ne diyor?",
        "Research what my notes say about backups",  # research in the vault: no web named
    ],
)
def test_a_first_call_is_not_research_when_the_user_s_words_do_not_name_the_web(words: str) -> None:
    # measured: with research offered, the small Qwen opened the backups question with research
    assert _call_names(constrain_call(_with_research(words), first_call=opening)) == ["search"]


@pytest.mark.parametrize(
    "case",
    [
        "a later round",
        "the setting off",
        "tool_choice none",
        "its own response_format",
        "no tools",
        "only page-changing tools",
    ],
)
def test_a_request_that_does_not_ask_for_a_call_goes_as_it_came(case: str) -> None:
    body, first_call = {
        "a later round": (ASK, opening),
        "the setting off": (FIRST, None),
        "tool_choice none": (FIRST | {"tool_choice": "none"}, opening),
        "its own response_format": (FIRST | {"response_format": {"type": "json_object"}}, opening),
        "no tools": (FIRST | {"tools": []}, opening),
        "only page-changing tools": (
            FIRST | {"tools": [t for t in tool_schemas() if t["function"]["name"] == "remove"]},
            opening,
        ),
    }[case]
    assert constrain_call(body, first_call) is body


def test_tool_choice_required_or_named_constrains_any_round() -> None:
    assert _call_names(constrain_call(ASK | {"tool_choice": "required"}, first_call=None)) == list(TOOLS)
    named = {"type": "function", "function": {"name": "read"}}
    assert _call_names(constrain_call(ASK | {"tool_choice": named}, first_call=None)) == ["read"]


def test_a_constrained_answer_is_a_call_counted_as_constrained_and_one_that_is_not_stays_text() -> None:
    answer, verdict = repair_answer(_completion(QWEN_BARE), TOOLS, constrained=True)
    assert verdict.outcome == "constrained" and answer["choices"][0]["finish_reason"] == "tool_calls"
    cut = QWEN_BARE[:40]  # the schema holds only while the answer is whole: max_tokens can cut it
    answer, verdict = repair_answer(_completion(cut), TOOLS, constrained=True)
    assert answer == _completion(cut) and verdict.outcome == "text"


def test_the_gateway_repairs_both_dialects_streamed_and_not_and_counts_it(
    gateway: str, redis_client: Redis, keys: PoolKeys, caplog: pytest.LogCaptureFixture
) -> None:
    with recorded_node(QWEN_PIECES, MODEL) as node:
        backend = BackendRecord(url=f"{node}/v1", kind="openai", models=[MODEL], loaded=[MODEL], slots=1)
        publish(redis_client, keys, NodeRecord(node="rec", backends=[backend]), ttl_s=60)

        plain = httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30).json()
        assert plain["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "listing"

        with httpx.stream("POST", f"{gateway}/v1/chat/completions", json=ASK | {"stream": True}, timeout=30) as r:
            events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: {")]
        deltas = [choice["delta"] for event in events for choice in event["choices"]]
        assert [d["tool_calls"][0]["function"]["name"] for d in deltas if d.get("tool_calls")] == ["listing"]
        assert not any(d.get("content") for d in deltas)

        ollama = httpx.post(f"{gateway}/api/chat", json=ASK | {"stream": False}, timeout=30).json()
        assert ollama["message"]["tool_calls"][0]["function"] == {
            "name": "listing",
            "arguments": {"folder": "notes", "filter": "type:concept", "cursor": 0},
        }
        with httpx.stream("POST", f"{gateway}/api/chat", json=ASK, timeout=30) as r:
            lines = [json.loads(line) for line in r.iter_lines() if line]
        assert lines[-1]["done"] and lines[-1]["message"]["tool_calls"][0]["function"]["name"] == "listing"
        assert not any(line["message"]["content"] for line in lines)

        no_tools = httpx.post(f"{gateway}/v1/chat/completions", json=ASK | {"tools": []}, timeout=30).json()
        assert no_tools["choices"][0]["message"]["content"] == QWEN_BARE  # no tools offered: nothing to repair

    metrics = httpx.get(f"{gateway}/metrics").text
    assert 'sentinel_pool_tool_answers_total{model="recorded",outcome="repaired"} 4.0' in metrics
    repaired = [r for r in caplog.records if r.getMessage() == "tool call repaired"]
    assert len(repaired) == 4 and all(r.model == MODEL and r.form == "bare" for r in repaired)


def test_the_gateway_sends_a_turn_s_first_round_under_the_call_schema_and_counts_it(
    gateway: str, redis_client: Redis, keys: PoolKeys, caplog: pytest.LogCaptureFixture
) -> None:
    received: list[dict[str, Any]] = []
    with recorded_node(QWEN_PIECES, MODEL, received=received) as node:
        backend = BackendRecord(url=f"{node}/v1", kind="openai", models=[MODEL], loaded=[MODEL], slots=1)
        publish(redis_client, keys, NodeRecord(node="rec", backends=[backend]), ttl_s=60)
        plain = httpx.post(f"{gateway}/v1/chat/completions", json=FIRST, timeout=30).json()
        assert plain["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "listing"
        with httpx.stream("POST", f"{gateway}/v1/chat/completions", json=FIRST | {"stream": True}, timeout=30) as r:
            assert any('"tool_calls"' in line for line in r.iter_lines())
        ollama = httpx.post(f"{gateway}/api/chat", json=FIRST | {"stream": False}, timeout=30).json()
        assert ollama["message"]["tool_calls"][0]["function"]["name"] == "listing"
        httpx.post(f"{gateway}/v1/chat/completions", json=ASK, timeout=30).raise_for_status()
    first = ["search"]
    assert [_call_names(body) for body in received[:3]] == [first] * 3  # both dialects, streamed and not
    assert "response_format" not in received[3]  # the round after a tool result is the model's to answer
    metrics = httpx.get(f"{gateway}/metrics").text
    assert 'sentinel_pool_tool_answers_total{model="recorded",outcome="constrained"} 3.0' in metrics
    assert 'sentinel_pool_tool_answers_total{model="recorded",outcome="repaired"} 1.0' in metrics
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("tool call ")].count(
        "tool call constrained"
    ) == 3
