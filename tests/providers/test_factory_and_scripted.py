from __future__ import annotations

import pytest

from sentinel.providers import ChatResult, ProviderError, ProviderNotConfigured, ToolCall, provider_for
from sentinel.providers.ollama import OllamaProvider
from sentinel.providers.openai_compat import OpenAICompatProvider
from sentinel.settings import ProviderSettings, Settings
from tests.support.scripted import ScriptedProvider


def test_unconfigured_role_is_refused_with_the_settings_to_set() -> None:
    with pytest.raises(ProviderNotConfigured, match="SENTINEL_EXTRACTION__MODEL"):
        provider_for(Settings().extraction, "extraction")
    with pytest.raises(ProviderNotConfigured, match="No model is configured"):
        provider_for(ProviderSettings(model="  "))


def test_kind_selects_the_provider() -> None:
    assert isinstance(provider_for(ProviderSettings(kind="ollama", model="m")), OllamaProvider)
    openai = provider_for(ProviderSettings(kind="openai", base_url="http://127.0.0.1:9/v1", model="m", num_ctx=123))
    assert isinstance(openai, OpenAICompatProvider)
    assert openai.num_ctx == 123


def test_scripted_provider_replays_and_records() -> None:
    truncated = ChatResult(content="{}", prompt_tokens=8192, finish_reason="length")
    provider = ScriptedProvider(
        ["plain answer", truncated, lambda request: f"you sent {len(request.messages)} messages"], num_ctx=8192
    )
    first = provider.chat([{"role": "user", "content": "x" * 400}], json_schema={"type": "object"})
    assert first.content == "plain answer" and first.prompt_tokens == 100 and first.finish_reason == "stop"
    assert provider.chat([{"role": "user", "content": "p"}]) is truncated
    assert provider.chat([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]).content == (
        "you sent 2 messages"
    )
    assert provider.pending == 0
    assert provider.requests[0].json_schema == {"type": "object"} and provider.requests[0].temperature == 0.0
    with pytest.raises(ProviderError, match="no reply left for request 4"):
        provider.chat([{"role": "user", "content": "one too many"}])


def test_scripted_text_tool_calls_take_the_lenient_path() -> None:
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    provider = ScriptedProvider(['```json\n{"name": "search", "arguments": {"query": "q"}}\n```'])
    result = provider.chat([{"role": "user", "content": "find q"}], tools=tools)
    assert result.tool_calls == [ToolCall("search", {"query": "q"})] and result.lenient_tool_calls
