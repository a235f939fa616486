"""Gate 4: a page whose tail the server did not read is not marked analysed.

Protects the summary layer from confident answers about half a page: a server that silently cuts a prompt to
its context window (Ollama does) still answers, and nothing in the answer says so. The gate compares the
tokens the server says it evaluated (plus what it generated, which shares the window) with the window; a call
that filled the window is treated as cut.

Its limit, kept visible by a test: an endpoint that returns no usage reports nothing to compare, and the
gate is blind. The call then passes (there is no evidence either way) with a ``caveat``, and the run reports
it once, so the person knows the gate did not stand on that endpoint. A server that counts only the uncached
part of a prompt under-reports the same way.
"""

from __future__ import annotations

from sentinel.gates import Verdict
from sentinel.providers import ChatResult

BLIND = "the endpoint returned no usage: the truncation gate cannot tell whether pages were read whole"


def read_whole(result: ChatResult, window: int) -> Verdict[ChatResult]:
    """Whether the server read the whole prompt of this call, as far as its usage report can tell."""
    if result.prompt_tokens is None:
        return Verdict(True, kept=[result], caveat=BLIND)
    used = result.prompt_tokens + (result.completion_tokens or 0)
    if result.prompt_tokens >= window or used >= window:
        return Verdict(
            False,
            f"the server evaluated {result.prompt_tokens} prompt tokens (+{result.completion_tokens or 0} generated)"
            f" in a {window}-token window: the tail was not read; give the role a larger num_ctx",
            dropped=[result],
        )
    return Verdict(True, kept=[result])
