"""Gate 4: a page whose tail the server did not read is not marked analysed.

Protects the summary layer from confident answers about half a page: a server that silently cuts a prompt to
its context window (Ollama does) still answers, and nothing in the answer says so. The gate compares the
tokens the server says it evaluated (plus what it generated, which shares the window) with the window; a call
that filled the window is treated as cut.

Its limit, kept visible by a test: an endpoint that returns no usage reports nothing to compare, and the
gate is blind. The call then passes (there is no evidence either way) and the run reports it once, so the
person knows the gate did not stand on that endpoint. A server that counts only the uncached part of a prompt
under-reports the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sentinel.providers import ChatResult

Verdict = Literal["read", "truncated", "blind"]


@dataclass(frozen=True)
class Evaluation:
    verdict: Verdict
    reason: str = ""


def read_whole(result: ChatResult, window: int) -> Evaluation:
    """Whether the server read the whole prompt of this call, as far as its usage report can tell."""
    if result.prompt_tokens is None:
        return Evaluation(
            "blind", "the endpoint returned no usage: the truncation gate cannot tell whether pages were read whole"
        )
    used = result.prompt_tokens + (result.completion_tokens or 0)
    if result.prompt_tokens >= window or used >= window:
        return Evaluation(
            "truncated",
            f"the server evaluated {result.prompt_tokens} prompt tokens (+{result.completion_tokens or 0} generated)"
            f" in a {window}-token window: the tail was not read; give the role a larger num_ctx",
        )
    return Evaluation("read")
