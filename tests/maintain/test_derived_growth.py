"""Derived pages add nothing to the graph: a link a wiki page places to a new name stays a link, nothing more."""

from __future__ import annotations

from sentinel.gates import derived
from tests.support.maintain_pass import RunPass, ScriptedModel
from tests.support.vault import WriteVault

DEFINES = {
    "notes/a.md": "The Zorblat engine is a machine that turns links into pages.\n",
    "notes/b.md": "In short, the Zorblat engine is the loop that feeds on itself.\n",
}
PLANTED = {"wiki/Existing.md": "# Existing\n\nSee the [[Zorblat engine]] for more.\n"}  # e.g. a chat append


def agrees(name: str, sentences: list[str]) -> list[int]:
    return list(range(1, len(sentences) + 1))


def test_a_link_planted_in_a_wiki_page_grows_nothing(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({**DEFINES, **PLANTED})
    model = ScriptedModel(defining=agrees)  # extracts nothing; would call both sentences definitions
    done = run_maintain(settings, model)
    assert not (settings.vault / "wiki/Zorblat engine.md").exists()
    assert done.report.concept_pages_written == []
    assert model.asked_about("defining") == []  # never even a growth-queue name
    # Kept as a link (it renders, faded), and named by the gate as what it held back.
    links = done.db.execute("SELECT target FROM links WHERE source = 'wiki/Existing.md'").fetchall()
    assert [r[0] for r in links] == ["Zorblat engine"]
    queue = derived.growth_queue(done.db, 50)
    assert [u.name for u in queue.dropped] == ["Zorblat engine"] and not queue.passed


def test_the_same_link_from_a_note_does_grow_the_graph(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({**DEFINES, **PLANTED, "notes/c.md": "Read about the [[Zorblat engine]].\n"})
    done = run_maintain(settings, ScriptedModel(defining=agrees))
    assert done.report.concept_pages_written == ["wiki/Zorblat engine.md"]


def test_wiki_links_do_not_count_towards_a_name(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    files = {**DEFINES, "notes/c.md": "Read about the [[Zorblat engine]].\n"}
    files |= {f"wiki/W{i}.md": "# W\n\nSee [[Zorblat engine]].\n" for i in range(3)}
    done = run_maintain(vault_settings(files), ScriptedModel())
    (entry,) = [u for u in derived.growth_queue(done.db, 50).kept if u.name == "Zorblat engine"]
    assert entry.pages == 1  # the note's link; the three wiki pages' links do not count
