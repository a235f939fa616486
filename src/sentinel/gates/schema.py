"""Gate 3: a reply that fails the JSON schema is asked again a bounded number of times, then the page fails.

Protects the index from half-parsed output: nothing is read out of a reply that does not validate against
the schema the call asked for (pydantic does the validation). Each retry tells the model what was wrong with
its previous reply, in the same clean context. After ``attempts`` calls the caller records the page as
failed with the last reason; it is never marked analysed on a guess.

The one leniency: a reply wrapped in a Markdown code fence (```json ... ```) is read as the JSON inside it,
because small models fence JSON even when told not to; the contents must still validate.

``gated_call`` is the one way the maintenance pass asks a schema-checked question: the reply is capped at the
tokens reserved for it, validated here, and the accepted call goes through the truncation gate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt

from sentinel.errors import Refused
from sentinel.gates import Verdict, truncation
from sentinel.providers import ChatProvider, ChatResult, Message

Reply = TypeVar("Reply", bound=BaseModel)

_FENCE = re.compile(r"\A\s*```[A-Za-z]*\s*\n?(.*?)\n?```\s*\Z", re.DOTALL)


class SchemaRejected(ValueError):
    """One reply did not validate; the message says why, in words the model can act on."""


@dataclass
class CallRefused(Refused):
    """A gate refused the call's reply (schema or truncation): the page or question fails with ``reason``."""

    reason: str
    results: list[ChatResult]

    def __str__(self) -> str:
        return self.reason


class SchemaFailed(CallRefused):
    """Every attempt failed the schema."""


def _unchecked(text: str, schema: type[Reply]) -> Reply:
    """The reply as a pass without this gate would read it: whatever JSON object it holds, unvalidated."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = {}
    return schema.model_construct(**(data if isinstance(data, dict) else {}))


def check_reply(content: str, schema: type[Reply]) -> Verdict[Reply]:
    """Kept: the reply as a validated ``schema`` instance; dropped: its unvalidated reading, with the first
    problem as the reason."""
    fenced = _FENCE.match(content)
    text = (fenced.group(1) if fenced else content).strip()
    try:
        return Verdict(True, kept=[schema.model_validate_json(text)])
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the reply"
        return Verdict(False, f"{where}: {first['msg']} (got {text[:120]!r})", dropped=[_unchecked(text, schema)])


Call = Callable[[Sequence[Message]], ChatResult]


def call_until_valid(
    call: Call, messages: Sequence[Message], schema: type[Reply], attempts: int
) -> tuple[Reply, list[ChatResult]]:
    """Call the model until a reply validates against ``schema``, at most ``attempts`` times.

    Returns the parsed reply and every ``ChatResult`` (for timings and the truncation gate, which reads the
    accepted one: the last). Raises ``SchemaFailed`` when no attempt validated.
    """
    results: list[ChatResult] = []
    conversation = list(messages)

    def attempt() -> Reply:
        result = call(conversation)
        results.append(result)
        verdict = check_reply(result.content, schema)
        if verdict.passed:
            return verdict.kept[0]
        # Same context, plus what was wrong: a retry at temperature 0 with nothing new would repeat itself.
        conversation[len(messages) :] = [
            {"role": "assistant", "content": result.content},
            {"role": "user", "content": f"That reply was not valid: {verdict.reason}. Reply again with JSON only."},
        ]
        raise SchemaRejected(verdict.reason)

    retrying = Retrying(
        stop=stop_after_attempt(max(1, attempts)), retry=retry_if_exception_type(SchemaRejected), reraise=False
    )
    try:
        reply = retrying(attempt)
    except RetryError as error:
        last = error.last_attempt.exception()
        raise SchemaFailed(f"reply failed the JSON schema {len(results)} times; last: {last}", results) from last
    return reply, results


@dataclass(frozen=True)
class Gated(Generic[Reply]):
    reply: Reply
    results: list[ChatResult]  # every call made, the accepted one last
    caveat: str  # what the truncation gate could not look at ("" when it looked)


def gated_call(
    provider: ChatProvider, messages: Sequence[Message], reply: type[Reply], *, attempts: int, max_tokens: int
) -> Gated[Reply]:
    """One schema-checked question: bounded retries, a reply capped at ``max_tokens`` (a reply cut there fails
    the schema and is asked again), and the truncation gate on the accepted call. Raises ``CallRefused``
    (``SchemaFailed`` for the schema) when a gate refuses; provider errors propagate as they are."""
    parsed, results = call_until_valid(
        lambda conversation: provider.chat(conversation, json_schema=reply.model_json_schema(), max_tokens=max_tokens),
        messages,
        reply,
        attempts,
    )
    whole = truncation.read_whole(results[-1], provider.num_ctx)
    if not whole.passed:
        raise CallRefused(whole.reason, results)
    return Gated(parsed, results, whole.caveat)
