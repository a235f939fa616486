"""The OpenAI-compatible provider against loopback servers that force what a real one will not do on cue:
refusing the thinking-off fields, reasoning anyway, omitting usage, failing. What a real llama.cpp answers is
replayed from recordings (tests/providers/test_recorded.py)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from sentinel.providers import ContextExceeded, ProviderError, ProviderNotConfigured, ProviderUnavailable, provider_for
from sentinel.providers.base import CONNECT_ATTEMPTS
from sentinel.settings import ProviderSettings
from tests.support.http_stub import HttpStub, RecordedRequest
from tests.support.provider_log import notices

SCHEMA = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
USER = [{"role": "user", "content": "page"}]


def completion(content: str = '{"summary": "s"}', **message_extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content, **message_extra}}
        ],
        "usage": {"prompt_tokens": 40, "completion_tokens": 7, "total_tokens": 47},
    }


def settings(url: str, **overrides: Any) -> ProviderSettings:
    return ProviderSettings(**({"kind": "openai", "base_url": f"{url}/v1", "model": "m", "num_ctx": 4096} | overrides))


def test_request_shape_thinking_off_and_total_only_timings() -> None:
    with HttpStub(lambda request: (200, completion())) as stub:
        result = provider_for(settings(stub.url)).chat(USER, json_schema=SCHEMA)
    body = stub.requests[0].body
    assert stub.requests[0].path == "/v1/chat/completions"
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA}}
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["reasoning_effort"] == "none"
    assert body["temperature"] == 0.0
    assert not {"top_p", "top_k", "min_p", "seed"} & body.keys()
    assert "authorization" not in stub.requests[0].headers
    assert (result.prompt_tokens, result.completion_tokens, result.finish_reason) == (40, 7, "stop")
    assert not result.split_timings and result.timings.total_s > 0
    assert result.timings.prefill_s is None and result.timings.load_s is None


def test_refused_thinking_field_is_dropped_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    def respond(request: RecordedRequest) -> tuple[int, Any]:
        if "chat_template_kwargs" in request.body:  # what OpenAI answers to a field it does not know
            message = "Unrecognized request argument supplied: chat_template_kwargs"
            return 400, {"error": {"message": message, "type": "invalid_request_error"}}
        return 200, completion()

    with HttpStub(respond) as stub:
        provider = provider_for(settings(stub.url))
        for _ in range(2):
            assert provider.chat(USER).content == '{"summary": "s"}'
    assert ["chat_template_kwargs" in request.body for request in stub.requests] == [True, False, False]
    # Only the refused field goes; the one the endpoint accepts is still sent.
    assert all(request.body["reasoning_effort"] == "none" for request in stub.requests)
    said = notices(caplog, "refused the thinking-off field(s) chat_template_kwargs")
    assert len(said) == 1


def test_every_refused_field_goes_and_then_a_real_error_still_surfaces() -> None:
    def respond(request: RecordedRequest) -> tuple[int, Any]:
        for field in ("chat_template_kwargs", "reasoning_effort"):
            if field in request.body:
                return 400, {"error": {"message": f"{field} is not supported with this model."}}
        return 400, {"error": {"message": "messages: at least one message is required"}}

    with HttpStub(respond) as stub, pytest.raises(ProviderError, match=r"HTTP 400.*at least one message"):
        provider_for(settings(stub.url)).chat(USER)
    assert len(stub.requests) == 3


def test_reasoning_anyway_is_flagged_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    replies = [
        completion(reasoning_content="The user wants a summary, so..."),
        completion("<think>\nfirst I read the page\n</think>\n\n" + '{"summary": "s"}'),
    ]
    with HttpStub(lambda request: (200, replies[len(stub.requests) - 1])) as stub:
        provider = provider_for(settings(stub.url))
        results = [provider.chat(USER) for _ in range(2)]
    assert [result.thinking_seen for result in results] == [True, True]
    assert results[1].content == '{"summary": "s"}'  # inline reasoning is not handed on as the answer
    assert len(notices(caplog, "reasoned although")) == 1


def test_missing_usage_is_none_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    reply = completion()
    del reply["usage"]
    with HttpStub(lambda request: (200, reply)) as stub:
        provider = provider_for(settings(stub.url))
        results = [provider.chat(USER) for _ in range(2)]
    assert [(result.prompt_tokens, result.completion_tokens) for result in results] == [(None, None)] * 2
    assert len(notices(caplog, "carries no usage")) == 1


def test_api_key_comes_from_the_named_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL_TEST_OPENAI_KEY", "sk-test-456")
    with HttpStub(lambda request: (200, completion())) as stub:
        provider_for(settings(stub.url, api_key_env="SENTINEL_TEST_OPENAI_KEY")).chat(USER)
    assert stub.requests[0].headers["authorization"] == "Bearer sk-test-456"
    assert "sk-test-456" not in str(stub.requests[0].body)

    monkeypatch.setenv("SENTINEL_TEST_OPENAI_KEY", "")
    with pytest.raises(ProviderNotConfigured, match=r"SENTINEL_TEST_OPENAI_KEY.*not set or empty"):
        provider_for(settings(stub.url, api_key_env="SENTINEL_TEST_OPENAI_KEY"))


def test_server_error_names_the_status_and_body() -> None:
    with (
        HttpStub(lambda request: (500, {"error": {"message": "slot unavailable"}})) as stub,
        pytest.raises(ProviderError, match=r"HTTP 500.*slot unavailable"),
    ):
        provider_for(settings(stub.url)).chat(USER)
    assert len(stub.requests) == 1  # an answered error is not a connection problem: no retry


def test_malformed_reply_is_a_clear_error() -> None:
    with (
        HttpStub(lambda request: (200, {"object": "chat.completion", "choices": []})) as stub,
        pytest.raises(ProviderError, match=r"no choices\[0\]\.message"),
    ):
        provider_for(settings(stub.url)).chat(USER)


def test_connection_refused_is_retried_a_bounded_number_of_times(closed_port: int) -> None:
    provider = provider_for(settings(f"http://127.0.0.1:{closed_port}"))
    started = time.monotonic()
    with pytest.raises(ProviderUnavailable, match=f"no connection after {CONNECT_ATTEMPTS} attempts"):
        provider.chat(USER)
    assert 0.4 < time.monotonic() - started < 10  # it backed off between tries, and then gave up


def test_openai_context_length_error_is_context_exceeded() -> None:
    error = {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in "
            "130000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    with HttpStub(lambda request: (400, error)) as stub, pytest.raises(ContextExceeded, match="4096-token window"):
        provider_for(settings(stub.url)).chat(USER)


def test_a_server_slower_than_the_timeout_is_a_clear_error() -> None:
    def slow(request: RecordedRequest) -> tuple[int, Any]:
        time.sleep(1.0)
        return 200, completion()

    with HttpStub(slow) as stub, pytest.raises(ProviderError, match="no answer within the role's timeout_s"):
        provider_for(settings(stub.url, timeout_s=0.2)).chat(USER)
