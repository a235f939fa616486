"""Model providers: one ``chat`` call per role, Ollama or any OpenAI-compatible endpoint, same result shape.

Use ``provider_for(settings.extraction, "extraction")``; tests that must force a model behaviour use
``tests.support.scripted.ScriptedProvider``. The Ollama provider is imported lazily (the ``ollama`` client is
the ``providers`` extra).
"""

from sentinel.providers.base import (
    ChatProvider,
    ChatResult,
    ContextExceeded,
    Message,
    ProviderError,
    ProviderNotConfigured,
    ProviderUnavailable,
    Timings,
    ToolCall,
    assistant_message,
    tool_message,
)
from sentinel.providers.factory import provider_for
from sentinel.providers.toolcalls import TextToolCalls, parse_text_tool_calls

__all__ = [
    "ChatProvider",
    "ChatResult",
    "ContextExceeded",
    "Message",
    "ProviderError",
    "ProviderNotConfigured",
    "ProviderUnavailable",
    "TextToolCalls",
    "Timings",
    "ToolCall",
    "assistant_message",
    "parse_text_tool_calls",
    "provider_for",
    "tool_message",
]
