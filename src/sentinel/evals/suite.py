"""Answer eval suites: cases with required facts, required source pages and forbidden strings.

A case passes when the answer contains every required fact, every required source was among the pages
the answer was built from, and no forbidden string appears in the answer. Each requirement is one string or
a list of alternatives, any one of which satisfies it; matching ignores case and runs of whitespace.
Checks are plain string rules: no model judges another model.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from sentinel.errors import BadInput

Requirement = str | list[str]


class SuiteError(BadInput, ValueError):
    """A suite file that cannot be used, with where it is wrong."""


class Case(BaseModel):
    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    facts: list[Requirement] = Field(default_factory=list)
    sources: list[Requirement] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)

    @field_validator("facts", "sources")
    @classmethod
    def _alternatives_not_empty(cls, value: list[Requirement]) -> list[Requirement]:
        if any(not item for item in value):
            raise ValueError("a requirement is empty: give a string or a non-empty list of alternatives")
        return value


class Suite(BaseModel):
    name: str
    cases: list[Case] = Field(min_length=1)


BUILT_IN = {"obsidian-help": "obsidian_help.yaml"}


def load_suite(name_or_path: str) -> Suite:
    """A built-in suite by name (``obsidian-help``) or a YAML file by path."""
    if name_or_path in BUILT_IN:
        text = resources.files("sentinel.evals").joinpath("suites", BUILT_IN[name_or_path]).read_text("utf-8")
        where = f"built-in suite {name_or_path}"
    else:
        path = Path(name_or_path)
        if not path.is_file():
            raise SuiteError(f"{path} is not a file, nor a built-in suite ({', '.join(BUILT_IN)})")
        text, where = path.read_text(encoding="utf-8"), str(path)
    try:
        suite = Suite.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as err:
        raise SuiteError(f"{where} is not a valid suite: {err}") from err
    ids = [c.id for c in suite.cases]
    if len(set(ids)) != len(ids):
        raise SuiteError(f"{where}: case ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    return suite


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _alternatives(requirement: Requirement) -> list[str]:
    return [requirement] if isinstance(requirement, str) else requirement


def missing_facts(case: Case, answer: str) -> list[str]:
    said = _norm(answer)
    return [" | ".join(_alternatives(f)) for f in case.facts if not any(_norm(a) in said for a in _alternatives(f))]


def missing_sources(case: Case, evidence: list[str]) -> list[str]:
    given = set(evidence)
    return [" | ".join(_alternatives(s)) for s in case.sources if not set(_alternatives(s)) & given]


def forbidden_found(case: Case, answer: str) -> list[str]:
    said = _norm(answer)
    return [f for f in case.forbidden if _norm(f) in said]
