from __future__ import annotations

from sentinel.providers import ChatResult, ToolCall, parse_text_tool_calls
from sentinel.providers.toolcalls import with_text_tool_calls

TOOLS = [
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}},
]
KNOWN = {"search", "read"}


def test_fenced_json_as_qwen_writes_it() -> None:
    text = 'I will search.\n```json\n{\n  "name": "search",\n  "arguments": {"query": "sync pricing"}\n}\n```'
    parsed = parse_text_tool_calls(text, KNOWN)
    assert parsed.calls == [ToolCall("search", {"query": "sync pricing"})]
    assert parsed.lenient


def test_bare_json_with_parameters_key_and_string_arguments() -> None:
    assert parse_text_tool_calls('{"name": "read", "parameters": {"path": "a.md"}}', KNOWN).calls == [
        ToolCall("read", {"path": "a.md"})
    ]
    assert parse_text_tool_calls('{"name": "read", "arguments": "{\\"path\\": \\"b.md\\"}"}', KNOWN).calls == [
        ToolCall("read", {"path": "b.md"})
    ]


def test_tagged_calls_and_openai_function_wrapper() -> None:
    text = (
        '<tool_call>\n{"name": "search", "arguments": {"query": "a"}}\n</tool_call>\n'
        '<tool_call>{"function": {"name": "read", "arguments": {"path": "x.md"}}}</tool_call>'
    )
    assert parse_text_tool_calls(text, KNOWN).calls == [
        ToolCall("search", {"query": "a"}),
        ToolCall("read", {"path": "x.md"}),
    ]


def test_a_call_written_in_a_tag_and_repeated_in_a_fence_counts_once() -> None:
    call = '{"name": "search", "arguments": {"query": "a"}}'
    text = f"<tool_call>{call}</tool_call>\n```json\n{call}\n```"
    assert len(parse_text_tool_calls(text, KNOWN).calls) == 1


def test_a_list_of_calls_in_one_fence() -> None:
    text = '```json\n[{"name": "search", "arguments": {"query": "a"}}, {"name": "read", "arguments": {}}]\n```'
    assert [call.name for call in parse_text_tool_calls(text, KNOWN).calls] == ["search", "read"]


def test_text_that_is_not_a_call() -> None:
    for text in [
        "Obsidian Sync costs money; see [[Pricing]]. [DONE]",
        '{"summary": "A page about sync.", "concepts": ["Obsidian Sync"]}',  # an answer, not a call
        '```json\n{"name": "delete_everything", "arguments": {}}\n```',  # not one of the offered tools
        '{"name": "search", "arguments": "not json"}',
        "{broken json",
    ]:
        parsed = parse_text_tool_calls(text, KNOWN)
        assert parsed.calls == [] and not parsed.lenient, text


def test_without_known_tools_only_objects_with_arguments_count() -> None:
    assert parse_text_tool_calls('{"name": "Paris", "population": 2}').calls == []
    assert parse_text_tool_calls('{"name": "anything", "arguments": {}}').calls == [ToolCall("anything", {})]


def test_lenient_path_is_flagged_on_the_result_only_when_used() -> None:
    written = ChatResult(content='```json\n{"name": "search", "arguments": {"query": "q"}}\n```')
    found = with_text_tool_calls(written, TOOLS)
    assert found.tool_calls == [ToolCall("search", {"query": "q"})] and found.lenient_tool_calls

    native = ChatResult(content="", tool_calls=[ToolCall("read", {"path": "a.md"}, id="c1")])
    assert with_text_tool_calls(native, TOOLS) is native
    assert not with_text_tool_calls(written, None).tool_calls  # no tools offered: text stays text
