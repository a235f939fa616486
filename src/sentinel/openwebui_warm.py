"""The warm-up `make up` runs while Open WebUI starts: the Sentinel chat's prefix sent once to the endpoint Open
WebUI's chat connection uses, so the model server's prompt cache holds it before anyone asks.

One request, shaped as Open WebUI's first request of a chat (its system message and tools, from
``sentinel.chat_prefix``), with a one-word question and ``max_tokens: 1``: the model server prefills the prefix
(the 15 s a first question would otherwise pay) and writes one token. It is marked background work
(``x-sentinel-background``), so a maintenance pass does not take it for a chat. Nothing here can fail a start:
every way it does not warm is one line saying why, and the first question then prefills the prefix itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from sentinel.chat_prefix import ChatPrefix, KnownPrefix, prefix_to_warm
from sentinel.openwebui import base_model_of
from sentinel.serving import BACKGROUND_HEADER
from sentinel.settings import Settings

WARM_QUESTION = "hi"
# Answers that mean "not up yet" (the gateway before its model server registered, a proxy before its upstream):
# asked again until the deadline. Any other refusal is said at once.
NOT_YET = {502, 503, 504}
RETRY_EVERY_S = 2.0
ENV = "SENTINEL_OPENWEBUI__"


@dataclass(frozen=True)
class WarmResult:
    warmed: bool
    line: str


def warm_request(prefix: ChatPrefix, model: str) -> dict[str, Any]:
    """The request body: Open WebUI's first request of a chat, up to its question, then a one-word one."""
    return {
        "model": model,
        "messages": [*prefix.messages, {"role": "user", "content": WARM_QUESTION}],
        "tools": prefix.tools,
        "max_tokens": 1,
        "stream": False,
    }


def warm(settings: Settings, url: str | None = None, timeout_s: float | None = None) -> WarmResult:
    """Send the warm-up to ``url`` (default ``openwebui.warm_url``), waiting up to ``timeout_s`` for it to answer."""
    owui = settings.openwebui
    url = (url if url is not None else owui.warm_url).rstrip("/")
    if not owui.warm:
        return WarmResult(False, f"warm-up off ({ENV}WARM=false; in the stack STACK_WARM=0)")
    if not url:
        return WarmResult(False, f"warm-up skipped: no endpoint to warm; set {ENV}WARM_URL to Open WebUI's connection")
    known = prefix_to_warm(settings)
    if isinstance(known, str):
        return WarmResult(False, f"warm-up skipped: {known}; the first chat prefills the prefix itself")
    key, model = owui.warm_key.get_secret_value(), base_model_of(settings)
    return _send(url, key, known, model, timeout_s or owui.warm_timeout_s)


def _send(url: str, key: str, known: KnownPrefix, model: str, timeout_s: float) -> WarmResult:
    headers = {BACKGROUND_HEADER: "true", **({"Authorization": f"Bearer {key}"} if key else {})}
    body = warm_request(known.prefix, model)
    started = time.monotonic()
    deadline = started + timeout_s
    why = ""
    with httpx.Client(headers=headers) as client:
        while time.monotonic() < deadline:
            left = max(deadline - time.monotonic(), 1.0)
            try:
                response = client.post(f"{url}/chat/completions", json=body, timeout=left)
            except httpx.TransportError as err:
                why = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
            else:
                if response.status_code == 200:
                    return WarmResult(True, _warmed_line(response, url, model, known, time.monotonic() - started))
                if response.status_code not in NOT_YET:
                    return WarmResult(False, _refused_line(response, url, model))
                why = f"{response.status_code} {response.text[:160]}"
            time.sleep(min(RETRY_EVERY_S, max(deadline - time.monotonic(), 0)))
    return WarmResult(
        False,
        f"warm-up skipped: {url} did not answer within {timeout_s:.0f} s ({why}); the first chat prefills the "
        "prefix itself",
    )


def _warmed_line(response: httpx.Response, url: str, model: str, known: KnownPrefix, seconds: float) -> str:
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    usage = answer.get("usage") if isinstance(answer, dict) else None
    tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    size = f"{tokens:,} prompt tokens" if isinstance(tokens, int) else "the prompt"
    prefix = f"the Sentinel chat's prefix ({known.origin})"
    return f"warm-up: {size} of {prefix} prefilled on {model} at {url} in {seconds:.0f} s"


def _refused_line(response: httpx.Response, url: str, model: str) -> str:
    said = " ".join(response.text.split())[:200]
    if response.status_code in (401, 403):
        fix = f"check {ENV}WARM_KEY (in the stack: the chat connection's key, STACK_API_KEY)"
    elif response.status_code == 404:
        fix = f"check {ENV}WARM_URL (an OpenAI base up to /v1) and that it serves {model}"
    else:
        fix = "the first chat prefills the prefix itself"
    return f"warm-up skipped: {url} answered {response.status_code} ({said}): {fix}"
