"""The three questions name resolution puts to the model, and their reply schemas.

"same?" is asked both ways round; "different, or a kind or part?" is its contrary; "one thing?" shows the
sentences where each name appears. Each reply is one bounded JSON field, so a grammar-constrained model
answers in a few tokens, and "yes to everything" means one well-defined thing: "same", "yes", "yes".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sentinel.gates import reversal, schema
from sentinel.gates.contrary import YesNo
from sentinel.providers import ChatProvider, ChatResult, Message

_SYSTEM: Message = {"role": "system", "content": "You compare two names from someone's notes. Reply with JSON only."}
_SHOWN_SENTENCES = 2
_SHOWN_CHARS = 300


class SameReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: Literal["same", "different", "unclear"]


class YesNoReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: Literal["yes", "no", "unclear"]


def _appears(sentences: Sequence[str]) -> str:
    return f' It appears in: "{sentences[0][:_SHOWN_CHARS]}"' if sentences else ""


def same(first: str, first_sentences: Sequence[str], second: str, second_sentences: Sequence[str]) -> list[Message]:
    return [
        _SYSTEM,
        {
            "role": "user",
            "content": (
                f'Name A: "{first}".{_appears(first_sentences)}\nName B: "{second}".{_appears(second_sentences)}\n\n'
                'Do A and B name the same thing? Answer "same" only if they are two spellings or names of one '
                'thing; "different" if they are different things (a kind of the other, a part of it, a related '
                'thing); "unclear" if you cannot tell. Return a JSON object {"answer": "same" | "different" | '
                '"unclear"}.'
            ),
        },
    ]


def contrary(first: str, second: str) -> list[Message]:
    return [
        _SYSTEM,
        {
            "role": "user",
            "content": (
                f'Names: "{first}" and "{second}".\n\nAre these two different things, or is one a kind, a part or '
                'a version of the other? Answer "yes" if they are different things or one is a kind, part or '
                'version of the other; "no" only if both name one and the same thing; "unclear" if you cannot '
                'tell. Return a JSON object {"answer": "yes" | "no" | "unclear"}.'
            ),
        },
    ]


def _listed(name: str, sentences: Sequence[str]) -> str:
    lines = "\n".join(f"- {s[:_SHOWN_CHARS]}" for s in sentences[:_SHOWN_SENTENCES])
    return f'Sentences about "{name}":\n{lines}'


def one_thing(
    first: str, first_sentences: Sequence[str], second: str, second_sentences: Sequence[str]
) -> list[Message]:
    return [
        _SYSTEM,
        {
            "role": "user",
            "content": (
                f"{_listed(first, first_sentences)}\n\n{_listed(second, second_sentences)}\n\n"
                f'Do all of these sentences speak of one and the same thing, "{first}" being another name for '
                f'"{second}"? Answer "yes" only if every sentence fits one thing; "no" if some sentence shows they '
                'are different things; "unclear" if you cannot tell. Return a JSON object {"answer": "yes" | '
                '"no" | "unclear"}.'
            ),
        },
    ]


_ANSWER_TOKENS = 64  # {"answer": "different"} is about ten tokens


def ask_same(model: ChatProvider, messages: list[Message], attempts: int, calls: list[ChatResult]) -> reversal.Answer:
    gated = schema.gated_call(model, messages, SameReply, attempts=attempts, max_tokens=_ANSWER_TOKENS)
    calls += gated.results
    return gated.reply.answer


def ask_yes_no(model: ChatProvider, messages: list[Message], attempts: int, calls: list[ChatResult]) -> YesNo:
    gated = schema.gated_call(model, messages, YesNoReply, attempts=attempts, max_tokens=_ANSWER_TOKENS)
    calls += gated.results
    return gated.reply.answer
