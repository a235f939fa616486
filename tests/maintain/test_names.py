"""Name resolution: zero wrong merges. Reversal, shape deferral, and where an accepted merge is recorded."""

from __future__ import annotations

import frontmatter

from sentinel.index.queries import unresolved
from tests.conftest import WriteVault
from tests.maintain.conftest import RunPass, ScriptedModel

GRB = "---\ntags: [astro]\n---\n# Gamma-ray burst\n\nA flash of gamma rays.\n"


def unresolved_names(done) -> list[str]:  # type: ignore[no-untyped-def]
    return [u.name for u in unresolved(done.db)]


def test_a_repeated_same_becomes_an_alias_in_the_pages_frontmatter(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings({"notes/Gamma-ray burst.md": GRB, "notes/obs.md": "We saw a [[gamma ray burst]].\n"})
    model = ScriptedModel(same=lambda a, b: "same")
    done = run_maintain(settings, model)
    assert model.asked_about("same") == ["gamma ray burst|Gamma-ray burst", "Gamma-ray burst|gamma ray burst"]
    assert done.report.resolved == {"same": 1, "different": 0, "unclear": 0, "unconfirmed": 0}
    text = (settings.vault / "notes/Gamma-ray burst.md").read_text(encoding="utf-8")
    assert (
        text
        == '---\ntags: [astro]\naliases:\n  - "gamma ray burst"\n---\n# Gamma-ray burst\n\nA flash of gamma rays.\n'
    )
    assert frontmatter.loads(text).metadata["aliases"] == ["gamma ray burst"]
    # The index picked the alias up: the link now resolves, and the name left the growth queue.
    assert "gamma ray burst" not in unresolved_names(done)


def test_a_flip_flopping_answer_is_unconfirmed_and_merges_nothing(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings({"notes/Gamma-ray burst.md": GRB, "notes/obs.md": "We saw a [[gamma ray burst]].\n"})
    answers = iter(["same", "different"])
    done = run_maintain(settings, ScriptedModel(same=lambda a, b: next(answers)))
    assert done.report.resolved == {"same": 0, "different": 0, "unclear": 0, "unconfirmed": 1}
    assert (settings.vault / "notes/Gamma-ray burst.md").read_text(encoding="utf-8") == GRB
    assert "gamma ray burst" in unresolved_names(done)


def test_subclass_and_expansion_shapes_defer_whatever_the_model_says(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(
        {
            "notes/Gamma-ray burst.md": GRB,
            "notes/Ariel.md": "# Ariel\n\nA moon of Uranus.\n",
            "notes/obs.md": "A [[short gamma-ray burst]] and the [[Ariel Space Telescope]].\n",
        }
    )
    settings = settings.model_copy(update={"resolve_min_similarity": 0.3})  # make sure both pairs are candidates
    model = ScriptedModel(same=lambda a, b: "same")
    done = run_maintain(settings, model)
    assert model.asked_about("same") == []
    assert done.report.resolved["unclear"] == 2 and done.report.resolved["same"] == 0
    assert (settings.vault / "notes/Gamma-ray burst.md").read_text(encoding="utf-8") == GRB


def test_different_is_counted_and_a_decided_pair_is_not_asked_again(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings({"notes/Gamma-ray burst.md": GRB, "notes/obs.md": "We saw [[gamma ray bursts]].\n"})
    first = ScriptedModel(same=lambda a, b: "different")
    assert run_maintain(settings, first).report.resolved["different"] == 1
    assert len(first.asked_about("same")) == 1  # "different" needs no second asking
    second = ScriptedModel(same=lambda a, b: "same")
    run_maintain(settings, second)
    assert second.asked_about("same") == []


def test_names_that_do_not_look_alike_are_never_paired(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/Gamma-ray burst.md": GRB, "notes/obs.md": "See [[Swift Observatory]].\n"})
    model = ScriptedModel(same=lambda a, b: "same")
    run_maintain(settings, model)
    assert model.asked_about("same") == []
