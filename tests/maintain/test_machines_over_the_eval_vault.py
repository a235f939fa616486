"""A model that says yes to everything, and one that says no to everything, over the whole eval vault:
each must produce zero concept pages and zero aliases.

Both are scripted, because the point is to force a model's behaviour: the yes-machine extracts plausible
concepts (the title, bold phrases, a whole sentence, a link's text with its markup), says every sentence
defines the name *and* that every sentence only mentions it, and says "same" to every pair; the no-machine
extracts the same concepts and says no, "different", to everything. Whatever comes out would be the model's
word alone, and a gate that takes the model's word is not a gate.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sentinel.settings import Settings
from tests.support.eval_data import require_eval_vault
from tests.support.maintain_pass import Pass, RunPass, ScriptedModel

_BOLD = re.compile(r"\*\*([^*\n]{1,80})\*\*")
_TITLE = re.compile(r"^Title: (.*)$", re.MULTILINE)
WHOLE_PAGE = 400_000  # every eval page fits one call, so each is one question of one shape
_SENTENCE = re.compile(r"[^\n.!?]{20,110}[.!?]")  # under the schema's 120 characters


def plausible_concepts(text: str) -> dict[str, object]:
    """What a model that copies too much might return: real names, and things that are not names."""
    title = _TITLE.search(text)
    concepts = [title.group(1)] if title else []
    concepts += _BOLD.findall(text)[:8]
    sentence = _SENTENCE.search(text.split("\n", 2)[-1])
    if sentence:
        concepts.append(sentence.group(0).strip())  # a whole sentence, verbatim
    concepts.append(f"[{concepts[0]}](https://example.org)" if concepts else "[x](y)")  # link markup
    return {"summary": "A page.", "concepts": concepts[:20]}


def everything(name: str, sentences: list[str]) -> list[int]:
    return list(range(1, len(sentences) + 1))


def nothing(name: str, sentences: list[str]) -> list[int]:
    return []


@pytest.fixture
def eval_copy(tmp_path: Path) -> Settings:
    vault = tmp_path / "vault"
    shutil.copytree(require_eval_vault(), vault, ignore=shutil.ignore_patterns(".*"))
    # A note reaching for names the eval vault defines (in four languages), so the machines are asked about them.
    # YAML and Git have no page of their own and two sentences each that code finds definitional.
    names = [
        "vault",
        "Vault",
        "Markdown",
        "Kasa",
        "bóveda",
        "Obsidian Publish",
        "Obsidian Sync",
        "Canvas",
        "YAML",
        "Git",
    ]
    (vault / "notes").mkdir()
    (vault / "notes" / "Reading list.md").write_text("".join(f"- [[{n}]]\n" for n in names), encoding="utf-8")
    settings = Settings(vault=vault, index_path=tmp_path / "index" / "index.db", _env_file=None)
    # Every paragraph of every growth-queue name is put to the machines, not the first few.
    return settings.model_copy(
        update={"concept_pages_per_pass": 400, "concept_max_paragraphs": 400, "resolve_max_pairs": 400}
    )


# Yes to every question: "defines it", "only mentions it", "same", "yes, different things", "yes, one thing".
YES = {
    "defining": everything,
    "mentioning": everything,
    "same": lambda a, b: "same",
    "contrary": lambda a, b: "yes",
    "one_thing": lambda a, b: "yes",
}
NO = {"defining": nothing, "mentioning": nothing, "same": lambda a, b: "different"}


def _machine(answers: dict[str, object]) -> ScriptedModel:
    return ScriptedModel(analysis=plausible_concepts, num_ctx=WHOLE_PAGE, replies=5000, **answers)  # type: ignore[arg-type]


def _run(settings: Settings, run: RunPass, model: ScriptedModel) -> Pass:
    done = run(settings, model)
    failed = [line for line in done.lines if "failed" in line][:5]
    assert done.report.analysed > 400 and not failed, failed  # the whole vault was read
    return done


def test_a_yes_machine_writes_no_concept_page_over_the_eval_vault(eval_copy: Settings, run_maintain: RunPass) -> None:
    model = _machine(YES)
    done = _run(eval_copy, run_maintain, model)
    assert done.report.concept_pages_written == []
    assert not (eval_copy.vault / eval_copy.folders.wiki).exists()
    # Not vacuous: the machine was asked, both questions, about many names.
    assert len(set(model.asked_about("defining"))) >= 5
    assert len(model.asked_about("mentioning")) == len(model.asked_about("defining"))
    # The whole sentence and the link markup it "extracted" never became concepts.
    kept = {c for (row,) in done.db.execute("SELECT concepts FROM analysis") for c in json.loads(row)}
    assert kept and not any("](" in c or c.endswith(".") for c in kept)


def test_a_no_machine_writes_nothing_over_the_eval_vault(eval_copy: Settings, run_maintain: RunPass) -> None:
    model = _machine(NO)
    done = _run(eval_copy, run_maintain, model)
    assert done.report.concept_pages_written == [] and done.report.aliases_written == 0
    assert len(set(model.asked_about("defining"))) >= 5
    assert model.asked_about("mentioning") == []
    assert done.report.ledger == ""  # nothing written, nothing to review


def test_a_yes_machine_writes_no_alias_over_the_eval_vault(eval_copy: Settings, run_maintain: RunPass) -> None:
    model = _machine(YES)
    done = _run(eval_copy, run_maintain, model)
    assert done.report.aliases_written == 0
    assert model.asked_about("same")  # not vacuous: pairs reached the model, and its yes did not merge them
