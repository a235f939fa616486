"""The OpenAI-compatible provider replaying real exchanges with the small Qwen on llama.cpp
(``tests/support/cassettes.py``): what the provider sends is still what was recorded, and what it makes of the
server's real answers (usage, the prefill/generation split, a tool call written as text, the context error)."""

from __future__ import annotations

import json

import pytest

from sentinel.providers import ChatResult, ContextExceeded
from sentinel.settings import ProviderSettings
from tests.support.cassettes import EXCHANGES, Cassette, load
from tests.support.http_stub import HttpStub
from tests.support.llama import LLAMA_CTX, MODEL_ALIAS


def _replay(name: str) -> tuple[Cassette, ChatResult]:
    cassette = load(name)
    with HttpStub(cassette.respond) as stub:
        role = ProviderSettings(kind="openai", base_url=f"{stub.url}/v1", model=MODEL_ALIAS, num_ctx=LLAMA_CTX)
        result = EXCHANGES[name](role)
    sent = stub.requests[-1]
    assert (sent.path, sent.body) == (cassette.path, cassette.request), "the provider sends another request now"
    assert isinstance(result, ChatResult)
    return cassette, result


def test_a_json_schema_reply_with_llama_cpp_usage_and_timings() -> None:
    cassette, result = _replay("llama_json_schema")
    answer = cassette.response
    assert result.content == answer["choices"][0]["message"]["content"]
    assert json.loads(result.content)["summary"]
    assert (result.prompt_tokens, result.completion_tokens) == (
        answer["usage"]["prompt_tokens"],
        answer["usage"]["completion_tokens"],
    )
    assert result.finish_reason == answer["choices"][0]["finish_reason"]
    # the split is the server's own: prompt_ms and predicted_ms, not the wall clock of the replay
    assert result.split_timings
    assert result.timings.prefill_s == pytest.approx(answer["timings"]["prompt_ms"] / 1000)
    assert result.timings.generation_s == pytest.approx(answer["timings"]["predicted_ms"] / 1000)
    assert not result.thinking_seen


def test_the_small_models_tool_call_is_found() -> None:
    cassette, result = _replay("llama_tool_call")
    message = cassette.response["choices"][0]["message"]
    assert [call.name for call in result.tool_calls] == ["search"], message
    assert isinstance(result.tool_calls[0].arguments.get("query"), str)
    # a call written in the text (this recording's case) takes the lenient path; one in the API field does not
    assert result.lenient_tool_calls == (not message.get("tool_calls"))


def test_llama_cpps_context_error_is_context_exceeded() -> None:
    cassette = load("llama_context_exceeded")
    assert cassette.status == 400
    with pytest.raises(ContextExceeded, match=f"{LLAMA_CTX}-token window"):
        _replay("llama_context_exceeded")
