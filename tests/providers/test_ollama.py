"""The Ollama provider against a loopback server that answers exactly in Ollama's documented /api/chat shape
(no registry ships the Ollama server, so this is the closest real thing)."""

from __future__ import annotations

from typing import Any

import pytest

from sentinel.providers import (
    ProviderError,
    ProviderNotConfigured,
    ProviderUnavailable,
    ToolCall,
    assistant_message,
    provider_for,
)
from sentinel.providers.base import ChatResult, tool_message
from sentinel.settings import ProviderSettings
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.provider_log import notices

SCHEMA = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}


def ollama_reply(**overrides: Any) -> dict[str, Any]:
    """A non-streaming /api/chat response as Ollama's API documentation shows it."""
    reply: dict[str, Any] = {
        "model": "qwen3:4b",
        "created_at": "2025-10-17T23:14:07.414671Z",
        "message": {"role": "assistant", "content": '{"summary": "A page about sync."}'},
        "done": True,
        "done_reason": "stop",
        "total_duration": 5_191_566_416,
        "load_duration": 2_154_458,
        "prompt_eval_count": 26,
        "prompt_eval_duration": 383_809_000,
        "eval_count": 298,
        "eval_duration": 4_799_921_000,
    }
    reply.update(overrides)
    return reply


def settings(url: str, **overrides: Any) -> ProviderSettings:
    fields: dict[str, Any] = {"kind": "ollama", "base_url": url, "model": "qwen3:4b", "num_ctx": 8192, "num_gpu": 99}
    return ProviderSettings(**(fields | overrides))


def test_request_shape_and_split_timings() -> None:
    with HttpStub(lambda request: (200, ollama_reply())) as stub:
        result = provider_for(settings(stub.url)).chat([{"role": "user", "content": "page"}], json_schema=SCHEMA)
    request = stub.requests[0]
    assert request.path == "/api/chat"
    assert request.body["think"] is False
    assert request.body["format"] == SCHEMA
    assert request.body["stream"] is False
    assert request.body["keep_alive"] == "5m"
    # Analysis roles: temperature 0 and no other sampling parameter.
    assert request.body["options"] == {"num_ctx": 8192, "num_gpu": 99, "temperature": 0.0}
    assert result.content == '{"summary": "A page about sync."}'
    assert (result.prompt_tokens, result.completion_tokens, result.finish_reason) == (26, 298, "stop")
    assert result.split_timings
    assert result.timings.load_s == pytest.approx(0.002154458)
    assert result.timings.prefill_s == pytest.approx(0.383809)
    assert result.timings.generation_s == pytest.approx(4.799921)
    assert result.timings.total_s == pytest.approx(5.191566416)


def test_output_cut_at_the_limit_reports_length() -> None:
    reply = ollama_reply(done_reason="length", eval_count=64, message={"role": "assistant", "content": '{"summ'})
    with HttpStub(lambda request: (200, reply)) as stub:
        result = provider_for(settings(stub.url)).chat([{"role": "user", "content": "p"}], max_tokens=64)
    assert stub.requests[0].body["options"]["num_predict"] == 64
    assert result.finish_reason == "length"
    assert result.prompt_tokens == 26


def test_conversation_role_leaves_sampling_to_the_server() -> None:
    with HttpStub(lambda request: (200, ollama_reply())) as stub:
        provider_for(settings(stub.url, num_gpu=None)).chat([{"role": "user", "content": "hi"}], temperature=None)
    assert stub.requests[0].body["options"] == {"num_ctx": 8192}


def test_missing_prompt_eval_count_is_none_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    reply = ollama_reply()
    del reply["prompt_eval_count"], reply["prompt_eval_duration"]
    with HttpStub(lambda request: (200, reply)) as stub:
        provider = provider_for(settings(stub.url))
        results = [provider.chat([{"role": "user", "content": "p"}]) for _ in range(2)]
    assert [result.prompt_tokens for result in results] == [None, None]
    assert not results[0].split_timings
    assert len(notices(caplog, "truncation gate cannot tell")) == 1


def test_think_refused_is_retried_without_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    def respond(request: RecordedRequest) -> tuple[int, Any]:
        if "think" in request.body:
            return 400, {"error": '"qwen2.5-coder:0.5b" does not support thinking'}
        return 200, ollama_reply()

    with HttpStub(respond) as stub:
        provider = provider_for(settings(stub.url))
        for _ in range(2):
            assert provider.chat([{"role": "user", "content": "p"}]).prompt_tokens == 26
    assert ["think" in request.body for request in stub.requests] == [True, False, False]
    assert len(notices(caplog, "refused think=false")) == 1


def test_other_client_errors_are_not_mistaken_for_a_refused_think() -> None:
    with (
        HttpStub(lambda request: (404, {"error": "model 'qwen3:4b' not found"})) as stub,
        pytest.raises(ProviderError, match=r"404.*not found"),
    ):
        provider_for(settings(stub.url)).chat([{"role": "user", "content": "p"}])
    assert len(stub.requests) == 1


def test_thinking_anyway_is_flagged_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    message = {"role": "assistant", "content": '{"summary": "s"}', "thinking": "Let me think about the page..."}
    with HttpStub(lambda request: (200, ollama_reply(message=message))) as stub:
        provider = provider_for(settings(stub.url))
        results = [provider.chat([{"role": "user", "content": "p"}]) for _ in range(2)]
    assert all(result.thinking_seen for result in results)
    assert results[0].content == '{"summary": "s"}'
    assert len(notices(caplog, "reasoned although")) == 1


def test_native_tool_calls_and_history_in_ollama_dialect() -> None:
    message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "search", "arguments": {"query": "sync"}}}],
    }
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    with HttpStub(lambda request: (200, ollama_reply(message=message, done_reason="stop"))) as stub:
        provider = provider_for(settings(stub.url))
        first = provider.chat([{"role": "user", "content": "find sync"}], tools=tools)
        call = first.tool_calls[0]
        history = [
            {"role": "user", "content": "find sync"},
            assistant_message(first),
            tool_message(call, "[OK] 2 hits"),
        ]
        provider.chat(history, tools=tools)
    assert first.tool_calls == [ToolCall("search", {"query": "sync"})] and not first.lenient_tool_calls
    sent = stub.requests[1].body["messages"]
    assert sent[1]["tool_calls"] == [{"function": {"name": "search", "arguments": {"query": "sync"}}}]
    assert sent[2] == {"role": "tool", "content": "[OK] 2 hits", "tool_name": "search"}
    assert stub.requests[1].body["tools"] == tools


def test_tool_call_written_in_text_takes_the_lenient_path() -> None:
    message = {"role": "assistant", "content": '```json\n{"name": "search", "arguments": {"query": "q"}}\n```'}
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    with HttpStub(lambda request: (200, ollama_reply(message=message))) as stub:
        result: ChatResult = provider_for(settings(stub.url)).chat([{"role": "user", "content": "q"}], tools=tools)
    assert result.tool_calls == [ToolCall("search", {"query": "q"})] and result.lenient_tool_calls


def test_api_key_comes_from_the_named_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_TEST_OLLAMA_KEY", "sk-ollama-123")
    with HttpStub(lambda request: (200, ollama_reply())) as stub:
        provider_for(settings(stub.url, api_key_env="SENTINEL_TEST_OLLAMA_KEY")).chat(
            [{"role": "user", "content": "p"}]
        )
    assert stub.requests[0].headers["authorization"] == "Bearer sk-ollama-123"

    monkeypatch.delenv("SENTINEL_TEST_OLLAMA_KEY")
    with pytest.raises(ProviderNotConfigured, match="SENTINEL_TEST_OLLAMA_KEY"):
        provider_for(settings("http://127.0.0.1:9", api_key_env="SENTINEL_TEST_OLLAMA_KEY"))


def test_unreachable_ollama_is_reported_after_bounded_retries(closed_port: int) -> None:
    with pytest.raises(ProviderUnavailable, match="no connection after 3 attempts"):
        provider_for(settings(f"http://127.0.0.1:{closed_port}")).chat([{"role": "user", "content": "p"}])
