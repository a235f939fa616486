"""Concept pages: the definition gate, provenance, and what is never a source."""

from __future__ import annotations

import frontmatter

from sentinel.answer.acts import quoted_passages
from sentinel.answer.result import Citation
from sentinel.index.queries import unresolved
from sentinel.maintain.health import health_line
from tests.support.maintain_pass import RunPass, ScriptedModel
from tests.support.vault import WriteVault

QUEUE_NOTE = "# Maintenance\n\nThe nightly pass shrinks the [[growth queue]].\n"
DEFINES_ONE = "The growth queue is the list of names that links reach for and no page answers to.\n"
DEFINES_TWO = "Notes on it.\n\nIn short, the growth queue is the set of unresolved link targets. It grows daily.\n"
MENTIONS = "We looked at the growth queue again today; it was long.\n"


def every_sentence_mentioning_defines(name: str, sentences: list[str]) -> list[int]:
    return [i for i, s in enumerate(sentences, 1) if "is the" in s]


def test_two_defining_sentences_write_a_quoted_page_with_sources(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(
        {
            "notes/maintenance.md": QUEUE_NOTE,
            "sources/queues.md": DEFINES_ONE,
            "notes/graph.md": DEFINES_TWO,
            "notes/diary.md": MENTIONS,
        }
    )
    model = ScriptedModel(defining=every_sentence_mentioning_defines)
    done = run_maintain(settings, model)
    assert done.report.concept_pages_written == ["wiki/growth queue.md"]
    page = frontmatter.loads((settings.vault / "wiki/growth queue.md").read_text(encoding="utf-8"))
    assert page.metadata["sources"] == ["notes/graph.md", "sources/queues.md"]
    assert (
        "> In short, the growth queue is the set of unresolved link targets.\n> — [[notes/graph|graph]]" in page.content
    )
    assert "> The growth queue is the list of names that links reach for and no page answers to.\n" in page.content
    assert "## Sources\n\n- [[notes/graph]]\n- [[sources/queues]]" in page.content
    # Every sentence quoted is in its source verbatim; the diary's mention is not a definition.
    assert "looked at" not in page.content
    # The page answers the links that reached for it: the queue no longer holds the name.
    assert "growth queue" not in [u.name for u in unresolved(done.db)]
    assert "growth queue: written wiki/growth queue.md from 2 defining sentences" in done.text


def test_one_defining_sentence_is_enough(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {"notes/maintenance.md": QUEUE_NOTE, "sources/queues.md": DEFINES_ONE, "notes/diary.md": MENTIONS}
    )
    done = run_maintain(settings, ScriptedModel(defining=every_sentence_mentioning_defines))
    assert done.report.concept_pages_written == ["wiki/growth queue.md"]
    page = frontmatter.loads((settings.vault / "wiki/growth queue.md").read_text(encoding="utf-8"))
    assert page.metadata["sources"] == ["sources/queues.md"]
    assert "looked at" not in page.content
    assert "growth queue: written wiki/growth queue.md from 1 defining sentences" in done.text
    # The pass's yield says so where a person looks (the ledger and the health line share it).
    assert done.report.work.pages_written == 1
    assert "1 concept page written" in health_line(done.db)


def test_the_defining_paragraph_is_asked_about_before_the_mentions(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    settings = vault_settings(
        {
            "notes/maintenance.md": QUEUE_NOTE,
            "notes/a diary.md": MENTIONS,
            "notes/b diary.md": "The growth queue was short on Monday.\n",
            "notes/z glossary.md": DEFINES_ONE,
        }
    ).model_copy(update={"concept_max_paragraphs": 2})
    done = run_maintain(settings, ScriptedModel(defining=every_sentence_mentioning_defines))
    assert done.report.concept_pages_written == ["wiki/growth queue.md"]


def test_a_glossary_singular_defines_the_plural_title(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {
            "notes/maintenance.md": "Old scans go with the [[Attachments]].\n",
            "notes/glossary.md": "An **attachment** is a file added to the vault from outside it.\n",
        }
    )
    done = run_maintain(settings, ScriptedModel(defining=lambda name, sentences: [1]))
    assert done.report.concept_pages_written == ["wiki/Attachments.md"]
    page = frontmatter.loads((settings.vault / "wiki/Attachments.md").read_text(encoding="utf-8"))
    assert "> An **attachment** is a file added to the vault from outside it.\n" in page.content
    assert page.metadata["sources"] == ["notes/glossary.md"]


def test_a_spelling_with_a_page_of_its_own_defines_nothing(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    # Workspaces, the plugin, has a page; Workspace, the interface, is another thing that only its spelling shares.
    settings = vault_settings(
        {
            "notes/maintenance.md": "Drag the pane across the [[Workspace]].\n",
            "notes/Workspaces.md": "Workspaces is a core plugin that saves layouts.\n",
        }
    )
    model = ScriptedModel(defining=lambda name, sentences: [1])
    done = run_maintain(settings, model)
    assert done.report.concept_pages_written == []
    assert model.asked_about("defining") == []


def test_mentioned_but_never_defined_stays_in_the_queue(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings({"notes/maintenance.md": QUEUE_NOTE, "notes/diary.md": MENTIONS})
    done = run_maintain(settings, ScriptedModel())
    assert "growth queue: skipped - mentioned but never defined in the sources" in done.text
    assert done.report.concepts_undefined == 1


def test_a_sentence_the_model_picks_must_name_the_concept(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {"notes/maintenance.md": QUEUE_NOTE, "notes/a.md": DEFINES_ONE, "notes/b.md": DEFINES_TWO}
    )
    # The model answers sentence numbers that do not exist: nothing is quoted from them.
    done = run_maintain(settings, ScriptedModel(defining=lambda name, sentences: [0, 7, 99]))
    assert done.report.concept_pages_written == []


def test_derived_pages_and_transcripts_are_never_sources(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {
            "notes/maintenance.md": QUEUE_NOTE,
            "wiki/Queues.md": "The growth queue is a derived idea that defines itself.\n",
            "conversations/chat.md": "assistant: the growth queue is what I say it is.\n",
            "sources/queues.md": DEFINES_ONE,
        }
    )
    # This model calls anything with " is " a definition: the derived page and the transcript would pass.
    model = ScriptedModel(defining=lambda name, sentences: [i for i, s in enumerate(sentences, 1) if " is " in s])
    done = run_maintain(settings, model)
    # Only the source may define it: the page quotes it alone.
    assert done.report.concept_pages_written == ["wiki/growth queue.md"]
    page = frontmatter.loads((settings.vault / "wiki/growth queue.md").read_text(encoding="utf-8"))
    assert page.metadata["sources"] == ["sources/queues.md"]
    definition_prompts = [p for p in model.prompts if p.startswith("Term:") and '"defining"' in p]
    assert len(definition_prompts) == 1  # the source's (the note's sentence has no definitional shape)
    assert not any("derived idea" in p or "what I say" in p for p in definition_prompts)


def test_a_passage_a_saved_note_quotes_is_not_a_second_source(
    vault_settings: WriteVault, run_maintain: RunPass
) -> None:
    """ "Save this" after an answer quotes what it rested on; a derived page's sentence quoted in a note must not
    define a concept the derived page alone may not define."""
    quoted = quoted_passages(
        [Citation("wiki/Queues.md", "", "The growth queue is a derived idea that defines itself.")]
    )
    settings = vault_settings(
        {
            "notes/maintenance.md": QUEUE_NOTE,
            "wiki/Queues.md": "The growth queue is a derived idea that defines itself.\n",
            "notes/What is the growth queue.md": "What is the growth queue?\n\n" + "\n\n".join(quoted) + "\n",
        }
    )
    model = ScriptedModel(defining=lambda name, sentences: [i for i, s in enumerate(sentences, 1) if " is " in s])
    done = run_maintain(settings, model)
    assert done.report.concept_pages_written == []
    asked = [p for p in model.prompts if p.startswith("Term:") and '"defining"' in p]
    assert not any("derived idea" in p for p in asked)


def test_a_page_that_already_answers_is_left_alone(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {"notes/maintenance.md": QUEUE_NOTE, "notes/a.md": DEFINES_ONE, "notes/b.md": DEFINES_TWO}
    )
    # The person clicked the faded link after the last sync: the file exists, the index does not know it yet.
    done_before = settings.vault / "wiki/growth queue.md"
    done_before.parent.mkdir()
    done_before.write_text("my own words\n", encoding="utf-8")
    model = ScriptedModel(defining=every_sentence_mentioning_defines)
    done = run_maintain(settings, model)
    assert done_before.read_text(encoding="utf-8") == "my own words\n"
    assert model.asked_about("defining") == []
    assert done.report.concept_pages_written == []


def test_unchanged_paragraphs_are_not_asked_again(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {"notes/maintenance.md": QUEUE_NOTE, "notes/a.md": DEFINES_ONE, "notes/b.md": DEFINES_TWO}
    )
    first = ScriptedModel()  # says no sentence defines it
    run_maintain(settings, first)
    assert first.asked_about("defining") == ["growth queue", "growth queue"]  # two paragraphs of defining shape
    second = ScriptedModel()
    done = run_maintain(settings, second)
    assert second.asked_about("defining") == []
    assert "not asked again" in done.text


def test_a_name_a_file_cannot_hold_keeps_it_as_an_alias(vault_settings: WriteVault, run_maintain: RunPass) -> None:
    settings = vault_settings(
        {
            "notes/maintenance.md": "See [[Note: growth]].\n",
            "notes/a.md": "Note: growth is the first thing. Note: growth is the other thing too.\n",
        }
    )
    done = run_maintain(settings, ScriptedModel(defining=lambda name, sentences: [1, 2]))
    assert done.report.concept_pages_written == ["wiki/Note growth.md"]
    page = frontmatter.loads((settings.vault / "wiki/Note growth.md").read_text(encoding="utf-8"))
    assert page.metadata["aliases"] == ["Note: growth"]
    assert "Note: growth" not in [u.name for u in unresolved(done.db)]
