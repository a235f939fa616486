"""Gate 3: a reply that fails the JSON schema is asked again a bounded number of times, then the page fails.

Protects the index from half-parsed output: nothing is read out of a reply that does not validate against
the schema the call asked for (pydantic does the validation). Each retry tells the model what was wrong with
its previous reply, in the same clean context. After ``attempts`` calls the caller records the page as
failed with the last reason; it is never marked analysed on a guess.

The one leniency: a reply wrapped in a Markdown code fence (```json ... ```) is read as the JSON inside it,
because small models fence JSON even when told not to; the contents must still validate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt

from sentinel.providers import ChatResult, Message

Reply = TypeVar("Reply", bound=BaseModel)

_FENCE = re.compile(r"\A\s*```[A-Za-z]*\s*\n?(.*?)\n?```\s*\Z", re.DOTALL)


class SchemaRejected(ValueError):
    """One reply did not validate; the message says why, in words the model can act on."""


@dataclass
class SchemaFailed(Exception):
    """Every attempt failed the schema: the page is recorded as failed with ``reason``."""

    reason: str
    results: list[ChatResult]

    def __str__(self) -> str:
        return self.reason


def parse_reply(content: str, schema: type[Reply]) -> Reply:
    """The reply as a validated ``schema`` instance, or ``SchemaRejected`` naming the first problem."""
    fenced = _FENCE.match(content)
    text = fenced.group(1) if fenced else content
    try:
        return schema.model_validate_json(text.strip())
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the reply"
        raise SchemaRejected(f"{where}: {first['msg']} (got {text.strip()[:120]!r})") from error


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
        try:
            return parse_reply(result.content, schema)
        except SchemaRejected as rejected:
            # Same context, plus what was wrong: a retry at temperature 0 with nothing new would repeat itself.
            conversation[len(messages) :] = [
                {"role": "assistant", "content": result.content},
                {"role": "user", "content": f"That reply was not valid: {rejected}. Reply again with JSON only."},
            ]
            raise

    retrying = Retrying(
        stop=stop_after_attempt(max(1, attempts)), retry=retry_if_exception_type(SchemaRejected), reraise=False
    )
    try:
        reply = retrying(attempt)
    except RetryError as error:
        last = error.last_attempt.exception()
        raise SchemaFailed(f"reply failed the JSON schema {len(results)} times; last: {last}", results) from last
    return reply, results
