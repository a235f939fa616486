"""A pytest plugin that removes one gate: ``SENTINEL_MUTATE_GATE=<name> pytest -p tests.maintain.mutate ...``.

Each gate is replaced by what the pass would do without it (pass everything through, believe the model), at the
module attribute the pass calls, so the pass runs exactly as if the gate's call were deleted. Used by
``test_mutations.py``: with any gate removed, at least one test must fail.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from sentinel.gates import (
    consistent,
    contexts,
    contrary,
    definition,
    derived,
    numbers,
    opposites,
    qualifiers,
    reversal,
    schema,
    shape,
    sibling,
    truncation,
    two_pages,
    verbatim,
)
from sentinel.providers import ChatResult, Message


def _believe_the_model(
    call: Callable[[Sequence[Message]], ChatResult], messages: Sequence[Message], reply: type[Any], attempts: int
) -> tuple[Any, list[ChatResult]]:
    result = call(messages)
    try:
        data = json.loads(result.content)
    except json.JSONDecodeError:
        data = {}
    return reply.model_construct(**data), [result]


def _one_is_enough(candidates: Any, name: str) -> definition.DefinitionVerdict:
    kept = list({c.sentence: c for c in candidates}.values())
    return definition.DefinitionVerdict(kept, len(kept) >= 1)


NEUTRAL: dict[str, tuple[object, str, object]] = {
    "verbatim": (verbatim, "keep_verbatim", lambda concepts, text: verbatim.VerbatimResult(kept=list(concepts))),
    "derived": (derived, "no_new_concepts_from_derived", lambda c, role, known: derived.DerivedResult(kept=list(c))),
    "schema": (schema, "call_until_valid", _believe_the_model),
    "truncation": (truncation, "read_whole", lambda result, window: truncation.Evaluation("read")),
    "definition": (definition, "judge_definitions", _one_is_enough),
    "reversal": (reversal, "confirmed_by_reversal", lambda first, swapped: first),
    "shape": (shape, "defers_by_shape", lambda a, b: False),
    "numbers": (numbers, "numbered_apart", lambda a, b: False),
    "qualifiers": (qualifiers, "qualified_apart", lambda a, b: False),
    "opposites": (opposites, "opposed", lambda a, b: False),
    "sibling": (sibling, "replaces_a_word", lambda a, b: False),
    "contexts": (contexts, "named_apart", lambda a, b, sentences: False),
    "contrary": (contrary, "denies_difference", lambda answer: True),
    "consistent": (consistent, "contexts_agree", lambda name_sentences, title_sentences, answer: True),
    "two_pages": (two_pages, "both_exist", lambda name_page, target_page: False),
}


def pytest_configure(config: pytest.Config) -> None:
    gate = os.environ.get("SENTINEL_MUTATE_GATE", "")
    if gate:
        module, name, neutral = NEUTRAL[gate]
        setattr(module, name, neutral)
