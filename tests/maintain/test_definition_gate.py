"""The definition gate against models that lie: each of its checks is the only thing standing in one test.

Every model here is scripted because the test must force what a model does: say yes to everything, say no
to everything, or agree that sentences define a name when they do not. Each must produce no concept page.
"""

from __future__ import annotations

from tests.support.maintain_pass import RunPass, ScriptedModel
from tests.support.vault import WriteVault

QUEUE_NOTE = "# Maintenance\n\nThe nightly pass shrinks the [[growth queue]].\n"
DEFINES_ONE = "The growth queue is the list of names that links reach for and no page answers to.\n"
DEFINES_TWO = "In short, the growth queue is the set of unresolved link targets.\n"


def everything(name: str, sentences: list[str]) -> list[int]:
    return list(range(1, len(sentences) + 1))


def nothing(name: str, sentences: list[str]) -> list[int]:
    return []


def test_a_yes_machine_defines_nothing(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/m.md": QUEUE_NOTE, "notes/a.md": DEFINES_ONE, "notes/b.md": DEFINES_TWO})
    model = ScriptedModel(defining=everything, mentioning=everything)
    done = run_maintain(settings, model)
    assert model.asked_about("mentioning") == ["growth queue", "growth queue"]  # the contrary question was put
    assert done.report.concept_pages_written == []
    assert not (settings.vault / "wiki").exists()


def test_a_no_machine_defines_nothing(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/m.md": QUEUE_NOTE, "notes/a.md": DEFINES_ONE, "notes/b.md": DEFINES_TWO})
    model = ScriptedModel(defining=nothing, mentioning=nothing)
    done = run_maintain(settings, model)
    assert done.report.concept_pages_written == []
    assert model.asked_about("mentioning") == []  # nothing was said to define it: nothing to ask the contrary of


def test_an_honest_answer_pair_writes_the_page(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/m.md": QUEUE_NOTE, "notes/a.md": DEFINES_ONE, "notes/b.md": DEFINES_TWO})
    done = run_maintain(settings, ScriptedModel(defining=everything, mentioning=nothing))
    assert done.report.concept_pages_written == ["wiki/growth queue.md"]


def test_mentions_that_the_model_calls_definitions_are_not_quoted(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(
        {
            "notes/m.md": QUEUE_NOTE,
            "notes/a.md": "We looked at the growth queue again today.\n",
            "notes/b.md": "Yesterday the growth queue was long, longer than last week.\n",
        }
    )
    done = run_maintain(settings, ScriptedModel(defining=everything, mentioning=nothing))
    assert done.report.concept_pages_written == []


def test_the_verb_is_not_the_noun(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {
            "notes/Index.md": "# Index\n\nSiehe [[Suchen]].\n",
            "notes/a.md": "Mit dieser Funktion kannst du in allen Notizen suchen, die du hast.\n",
            "notes/b.md": "suchen ist das, was du hier tun kannst, und es ist ein guter Anfang.\n",
            "notes/c.md": "Öffne die **Suchen** Ansicht.\n",
        }
    )
    done = run_maintain(settings, ScriptedModel(defining=everything, mentioning=nothing))
    assert done.report.concept_pages_written == []


def test_questions_are_not_definitions(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {
            "notes/m.md": QUEUE_NOTE,
            "notes/a.md": "The growth queue is the list of open names, isn't it?\n",
            "notes/b.md": "So the growth queue is the set of unresolved link targets?\n",
        }
    )
    done = run_maintain(settings, ScriptedModel(defining=everything, mentioning=nothing))
    assert done.report.concept_pages_written == []


def test_instructions_are_not_definitions(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {
            "notes/m.md": "# Maintenance\n\nSee [[Einstellungen]].\n",
            # The shape of a definition after an opening word, but the opening word is a command.
            "notes/a.md": "Beachte, die Einstellungen sind ein Fenster für alles.\n",
            "notes/b.md": "Siehe, die Einstellungen sind ein Menü mit vielen Seiten.\n",
        }
    )
    done = run_maintain(settings, ScriptedModel(defining=everything, mentioning=nothing))
    assert done.report.concept_pages_written == []
