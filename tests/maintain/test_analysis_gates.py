"""The four analysis gates, each forced by a scripted model, through the whole pass (so removing a gate's call
in the pass fails a test here: see tests/gates/test_mutations.py)."""

from __future__ import annotations

import json

from sentinel.index.sync import sync
from sentinel.maintain import queue
from tests.support.maintain_pass import RunPass, ScriptedModel, reply
from tests.support.vault import WriteVault

NOTE = "# Bursts\n\nA gamma-ray  burst is a flash of gamma rays.\nSee also [[Swift Observatory]].\n"


def test_invented_concept_is_dropped(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/bursts.md": NOTE})
    model = ScriptedModel(
        analysis=lambda text: {"summary": "On bursts.", "concepts": ["Gamma-Ray Burst", "neutron star merger"]}
    )
    done = run_maintain(settings, model)
    # Case and whitespace are normalised ("gamma-ray  burst" in the text); the invented name is not there.
    assert done.concepts("notes/bursts.md") == ["Gamma-Ray Burst"]
    row = done.analysis("notes/bursts.md")
    assert row["status"] == "ok" and "neutron star merger" in row["reason"]
    assert "1 dropped by the gates" in done.text


def test_verbatim_gate_needs_word_boundaries_and_forgives_wrapping(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings({"notes/queue.md": "We start with the `growth queue` and [[Swift Observatory]].\n"})
    model = ScriptedModel(
        analysis=lambda text: {"summary": "s", "concepts": ["art", "`growth queue`", "[[Swift Observatory]]"]}
    )
    done = run_maintain(settings, model)
    # "art" only occurs inside "start"; the link's visible words count as text.
    assert done.concepts("notes/queue.md") == ["growth queue", "Swift Observatory"]


def test_derived_page_cannot_add_a_concept(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {
            "notes/bursts.md": NOTE,
            "wiki/Gamma-ray burst.md": "A gamma-ray burst is bright. Magnetars may cause it. See Swift Observatory.\n",
        }
    )

    def analysis(text: str) -> dict[str, object]:
        if text.startswith("Title: bursts"):
            return {"summary": "On bursts.", "concepts": ["gamma-ray burst"]}
        return {"summary": "Concept page.", "concepts": ["gamma-ray burst", "Magnetars", "Swift Observatory"]}

    done = run_maintain(settings, ScriptedModel(analysis=analysis))
    # gamma-ray burst: extracted from a note in this same pass; Swift Observatory: a note links to it.
    assert done.concepts("wiki/Gamma-ray burst.md") == ["gamma-ray burst", "Swift Observatory"]
    assert "Magnetars" in done.analysis("wiki/Gamma-ray burst.md")["reason"]
    # The same new name from a page the user kept is a concept.
    keep = vault_settings({"notes/magnetars.md": "Magnetars may cause it.\n"})
    again = run_maintain(keep, ScriptedModel(analysis=lambda text: {"summary": "s", "concepts": ["Magnetars"]}))
    assert again.concepts("notes/magnetars.md") == ["Magnetars"]


def test_schema_failures_are_retried_then_accepted(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/bursts.md": NOTE})
    answers = iter(
        ['{"summary": "x"}', "Sure! Here is the JSON", '```json\n{"summary": "On bursts.", "concepts": []}\n```']
    )
    model = ScriptedModel(analysis=lambda text: next(answers))
    done = run_maintain(settings, model)
    row = done.analysis("notes/bursts.md")
    assert row["status"] == "ok" and row["summary"] == "On bursts."
    assert len(model.asked_about("analysis")) == 3


def test_schema_failures_are_bounded_then_recorded_as_failed(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/bursts.md": NOTE})
    model = ScriptedModel(analysis=lambda text: {"summary": "", "concepts": ["gamma-ray burst"]})
    provider_models = model.models()
    done = run_maintain(settings, provider_models)
    row = done.analysis("notes/bursts.md")
    assert row["status"] == "failed" and "3 times" in row["reason"] and "summary" in row["reason"]
    assert json.loads(row["concepts"]) == [] and row["summary"] == ""
    requests = [
        r
        for r in provider_models.extraction.requests  # type: ignore[attr-defined]
        if "<page>" in r.messages[1]["content"]
    ]
    assert len(requests) == settings.analysis_attempts
    # Each retry tells the model what was wrong with its last reply.
    assert "not valid" in requests[-1].messages[-1]["content"]
    assert queue.failed_analyses(done.db) == [("notes/bursts.md", row["reason"])]
    assert queue.count_awaiting(done.db) == 0  # failed is recorded, not retried every night


def test_truncated_evaluation_is_not_marked_analysed(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/bursts.md": NOTE})
    model = ScriptedModel(
        num_ctx=4096,
        analysis=lambda text: reply(
            '{"summary": "On bursts.", "concepts": []}', prompt_tokens=4096, completion_tokens=9
        ),
    )
    done = run_maintain(settings, model)
    row = done.analysis("notes/bursts.md")
    assert row["status"] == "failed" and "tail was not read" in row["reason"]
    assert row["summary"] == ""


def test_generation_running_into_the_window_counts_as_truncated(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings({"notes/bursts.md": NOTE})
    model = ScriptedModel(
        num_ctx=4096,
        analysis=lambda text: reply(
            '{"summary": "On bursts.", "concepts": []}', prompt_tokens=3000, completion_tokens=1096
        ),
    )
    assert run_maintain(settings, model).analysis("notes/bursts.md")["status"] == "failed"


def test_missing_usage_leaves_the_truncation_gate_blind_and_says_so(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    """The known limit: with no usage block the gate has nothing to compare. A page whose tail was never read
    is then marked analysed; the run says the gate was blind. If this test starts failing because the page is
    refused, the limit was lifted: update the docs, not the test."""
    settings = vault_settings({"notes/bursts.md": NOTE})
    model = ScriptedModel(
        num_ctx=4096,
        analysis=lambda text: reply(
            '{"summary": "On bursts.", "concepts": []}', prompt_tokens=None, completion_tokens=None
        ),
    )
    done = run_maintain(settings, model)
    assert done.analysis("notes/bursts.md")["status"] == "ok"
    assert done.report.blind
    assert sum("truncation gate is blind" in line for line in done.lines) == 1


def test_link_only_change_does_not_requeue_but_an_edit_does(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/bursts.md": NOTE})
    done = run_maintain(settings, ScriptedModel())
    assert queue.count_awaiting(done.db) == 0
    path = settings.vault / "notes/bursts.md"
    path.write_text(NOTE.replace("A gamma-ray  burst", "A [[gamma-ray  burst]]"), encoding="utf-8")
    sync(settings, done.db)
    assert queue.count_awaiting(done.db) == 0
    path.write_text(NOTE.replace("flash", "short flash"), encoding="utf-8")
    sync(settings, done.db)
    assert [d.path for d in queue.awaiting_analysis(done.db)] == ["notes/bursts.md"]


def test_conversations_are_silent_and_empty_pages_need_no_call(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(
        {"conversations/2026-09-03.md": "user: what is a gamma-ray burst?\n", "notes/empty.md": "---\ntags: [x]\n---\n"}
    )
    model = ScriptedModel()
    done = run_maintain(settings, model)
    assert model.asked == []
    assert done.analysis("conversations/2026-09-03.md") is None
    assert done.analysis("notes/empty.md")["status"] == "ok"
