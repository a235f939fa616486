"""The OpenAI-compatible provider against the real llama.cpp server running the real Qwen2.5-Coder-0.5B."""

from __future__ import annotations

import json

import pytest

from sentinel.providers import ContextExceeded, provider_for
from sentinel.settings import ProviderSettings
from tests.support.cassettes import PAGE, SCHEMA

pytestmark = pytest.mark.slow


def test_json_schema_request_returns_parseable_json_with_usage(llama_settings: ProviderSettings) -> None:
    result = provider_for(llama_settings).chat(
        [
            {"role": "system", "content": "Answer with JSON: a one-sentence summary and the concepts named."},
            {"role": "user", "content": PAGE},
        ],
        json_schema=SCHEMA,
        max_tokens=200,
    )
    reply = json.loads(result.content)
    assert isinstance(reply["summary"], str) and reply["summary"]
    assert isinstance(reply["concepts"], list) and all(isinstance(concept, str) for concept in reply["concepts"])
    assert result.finish_reason == "stop"
    assert result.prompt_tokens is not None and 40 < result.prompt_tokens < 200
    assert result.completion_tokens is not None and result.completion_tokens > 5
    # llama.cpp's server reports prompt_ms / predicted_ms: the split is the server's, not the wall clock
    assert result.split_timings and result.timings.prefill_s and result.timings.generation_s
    assert result.timings.prefill_s + result.timings.generation_s <= result.timings.total_s
    assert not result.thinking_seen


def test_prompt_tokens_grow_with_the_page_and_a_cut_reports_length(llama_settings: ProviderSettings) -> None:
    provider = provider_for(llama_settings)
    short = provider.chat([{"role": "user", "content": PAGE}], max_tokens=4)
    long = provider.chat([{"role": "user", "content": PAGE * 8}], max_tokens=4)
    assert short.finish_reason == "length" and short.completion_tokens == 4
    assert short.prompt_tokens is not None and long.prompt_tokens is not None
    # What the truncation gate compares against the window: the server's own count of what it evaluated
    # (chat template included, so eight pages cost a bit less than eight times one).
    assert 4 * short.prompt_tokens < long.prompt_tokens < 8 * short.prompt_tokens


def test_a_prompt_longer_than_the_window_is_refused_not_cut(llama_settings: ProviderSettings) -> None:
    with pytest.raises(ContextExceeded, match="4096-token window"):
        provider_for(llama_settings).chat([{"role": "user", "content": PAGE * 120}], max_tokens=4)


def test_tool_call_from_the_small_model_is_found(llama_settings: ProviderSettings) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the user's notes by meaning and wording.",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            },
        }
    ]
    result = provider_for(llama_settings).chat(
        [{"role": "user", "content": "Search my notes for how Obsidian Sync handles version history."}],
        tools=tools,
        max_tokens=120,
    )
    assert [call.name for call in result.tool_calls] == ["search"], result.content
    assert isinstance(result.tool_calls[0].arguments.get("query"), str)
    print(f"tool call via {'lenient text parsing' if result.lenient_tool_calls else 'the API field'}")
