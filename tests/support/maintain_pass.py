"""Maintenance-pass fixtures (a plugin of the root conftest): a scripted model that answers by what it is asked,
and a one-call pass runner (``run_maintain``), for the maintenance and the research tests.

The scripted model is used only where a test must force a model behaviour (an invented concept, a flip-flopping
merge answer, a truncated evaluation, missing usage); the real model runs in ``test_real_model.py``.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from sentinel.index.db import open_index
from sentinel.maintain.models import Models
from sentinel.maintain.run import PassReport, run_pass
from sentinel.providers import ChatResult, Timings
from sentinel.settings import Settings
from tests.support.scripted import ChatRequest, ScriptedProvider

Analysis = Callable[[str], "dict[str, object] | str | ChatResult"]
Defining = Callable[[str, list[str]], list[int]]
Same = Callable[[str, str], str]

_PAGE = re.compile(r"<page>\n(.*)\n</page>", re.DOTALL)
_TERM = re.compile(r'^Term: "(.*)"$', re.MULTILINE)
_NUMBERED = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)
_NAMES = re.compile(r'^Name A: "(.*?)"\..*^Name B: "(.*?)"\.', re.MULTILINE | re.DOTALL)
_CONTRARY = re.compile(r'^Names: "(.*?)" and "(.*?)"\.$', re.MULTILINE)
_ONE_THING = re.compile(r'^Sentences about "(.*?)":$', re.MULTILINE)


def reply(
    content: str, prompt_tokens: int | None = 100, completion_tokens: int | None = 20, **timings: float
) -> ChatResult:
    """A model reply with the usage a gate reads (None: the endpoint sent no usage)."""
    return ChatResult(
        content=content,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        timings=Timings(total_s=timings.pop("total_s", 0.01), **timings),
        finish_reason="stop",
    )


@dataclass
class ScriptedModel:
    """Answers each kind of question the pass asks from a test-supplied function of what was asked."""

    analysis: Analysis = lambda text: {"summary": "A page.", "concepts": []}
    defining: Defining = lambda name, sentences: []
    mentioning: Defining = lambda name, sentences: []  # the contrary question: "only uses or mentions it"
    same: Same = lambda a, b: "different"
    # The contrary ("different, or a kind or part?") and the contexts ("one thing?") questions. None: answer
    # as a model consistent with ``same`` would (asking ``same`` once more).
    contrary: Same | None = None
    one_thing: Same | None = None
    num_ctx: int = 8192
    replies: int = 500  # how many questions the provider will answer before the test calls it an extra call
    # "analysis:<text>", "defining:<name>", "mentioning:<name>", "same:<a>|<b>", "contrary:<a>|<b>",
    # "one_thing:<a>|<b>"
    asked: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)  # every user message, whole

    def answer(self, request: ChatRequest) -> ChatResult:
        prompt = str(request.messages[1]["content"])
        self.prompts.append(prompt)
        if page := _PAGE.search(prompt):
            self.asked.append(f"analysis:{page.group(1)}")
            return _as_result(self.analysis(page.group(1)))
        if (term := _TERM.search(prompt)) and '"only_mentioning"' in prompt:
            sentences = [m.group(2) for m in _NUMBERED.finditer(prompt)]
            self.asked.append(f"mentioning:{term.group(1)}")
            return reply(json.dumps({"only_mentioning": self.mentioning(term.group(1), sentences)}))
        if term := _TERM.search(prompt):
            sentences = [m.group(2) for m in _NUMBERED.finditer(prompt)]
            self.asked.append(f"defining:{term.group(1)}")
            return reply(json.dumps({"defining": self.defining(term.group(1), sentences)}))
        if names := _NAMES.search(prompt):
            self.asked.append(f"same:{names.group(1)}|{names.group(2)}")
            return reply(json.dumps({"answer": self.same(names.group(1), names.group(2))}))
        if names := _CONTRARY.search(prompt):
            a, b = names.groups()
            self.asked.append(f"contrary:{a}|{b}")
            answer = self.contrary(a, b) if self.contrary else ("no" if self.same(a, b) == "same" else "yes")
            return reply(json.dumps({"answer": answer}))
        if len(mentioned := _ONE_THING.findall(prompt)) == 2:
            a, b = mentioned
            self.asked.append(f"one_thing:{a}|{b}")
            answer = self.one_thing(a, b) if self.one_thing else ("yes" if self.same(a, b) == "same" else "no")
            return reply(json.dumps({"answer": answer}))
        raise AssertionError(f"the scripted model does not know this question: {prompt[:200]}")

    def provider(self) -> ScriptedProvider:
        return ScriptedProvider([self.answer] * self.replies, num_ctx=self.num_ctx)

    def models(self) -> Models:
        provider = self.provider()
        return Models(provider, provider, "scripted")

    def asked_about(self, kind: str) -> list[str]:
        return [a.split(":", 1)[1] for a in self.asked if a.startswith(kind + ":")]


def yes_machine() -> ScriptedModel:
    """A model that answers yes to everything: "same", "yes" (they are different) and "yes" (one thing)."""
    return ScriptedModel(same=lambda a, b: "same", contrary=lambda a, b: "yes", one_thing=lambda a, b: "yes")


def _as_result(answer: dict[str, object] | str | ChatResult) -> ChatResult:
    if isinstance(answer, ChatResult):
        return answer
    return reply(answer if isinstance(answer, str) else json.dumps(answer))


@dataclass
class Pass:
    report: PassReport
    lines: list[str]
    db: sqlite3.Connection

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def analysis(self, path: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM analysis WHERE path = ?", (path,)).fetchone()

    def concepts(self, path: str) -> list[str]:
        row = self.analysis(path)
        assert row is not None, f"{path} has no analysis row"
        return list(json.loads(row["concepts"]))


RunPass = Callable[..., Pass]


@pytest.fixture
def run_maintain() -> RunPass:
    """Run one pass with a scripted model (or real ``Models``) and collect its progress lines."""

    def run(settings: Settings, model: ScriptedModel | Models, **options: object) -> Pass:
        db = open_index(settings)
        lines: list[str] = []
        models = model.models() if isinstance(model, ScriptedModel) else model
        report = run_pass(settings, db, models=lambda: models, say=lines.append, **options)  # type: ignore[arg-type]
        return Pass(report, lines, db)

    return run
