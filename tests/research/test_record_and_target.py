"""Where records go and how the vault treats them: only a Sentinel vault's sources folder, refused otherwise; a
record and a pasted article are indexed at the body rung only, place no links, and concept pages written from
them list the record file in their provenance."""

from __future__ import annotations

import os
from pathlib import Path

import frontmatter
import pytest

from sentinel.index.db import open_index
from sentinel.index.queries import unresolved
from sentinel.index.sync import sync
from sentinel.paths import source_record_path
from sentinel.research.record import Passage, RecordRefused, Run, Unusable, recorded_passages, write_record
from sentinel.research.run import research
from sentinel.research.target import ResearchRefused, research_target
from sentinel.search import search
from sentinel.settings import Settings
from tests.support.http_stub import HttpStub
from tests.support.maintain_pass import RunPass, ScriptedModel
from tests.support.research import MakeVault

DEFINING = "The growth queue is the list of names that links reach for and no page answers to."
DEFINING_TOO = "In short, the growth queue is the set of unresolved link targets."


def _run(*passages: str, url: str = "https://example.org/queues") -> Run:
    found = [Passage(p, url, "Queues", "2026-12-01T10:00:00Z", "ab" * 32) for p in passages]
    return Run("What is the growth queue?", "2026-12-01T10:00:00Z", "searxng", "growth queue", found)


def test_research_refuses_a_folder_sentinel_does_not_read(tmp_path: Path) -> None:
    # The seed's failure: a default vault nobody indexes. No index there: refused, the backend never asked.
    settings = Settings(vault=tmp_path, _env_file=None)
    with HttpStub(lambda request: (200, {"results": []})) as backend:
        settings.research.searxng_url = backend.url
        with pytest.raises(ResearchRefused, match="is not a Sentinel vault: there is no index at"):
            research("what is a vault?", settings)
        assert backend.requests == []
    assert not (tmp_path / "sources").exists()
    missing = Settings(vault=tmp_path / "nowhere", _env_file=None)
    with pytest.raises(ResearchRefused, match="does not exist"):
        research_target(missing)


def test_research_refuses_a_sources_entry_that_is_not_a_vault_folder(research_vault: MakeVault, tmp_path: Path) -> None:
    settings = research_vault()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (settings.vault / "sources").symlink_to(outside)
    with pytest.raises(ResearchRefused, match="symbolic link"):
        research_target(settings)
    (settings.vault / "sources").unlink()
    (settings.vault / "sources").write_text("a file", encoding="utf-8")
    with pytest.raises(ResearchRefused, match="not a folder of the vault"):
        research_target(settings)
    (settings.vault / "sources").unlink()
    assert research_target(settings) == settings.vault.resolve() / "sources"
    nested = settings.model_copy(update={"folders": settings.folders.model_copy(update={"sources": "a/b"})})
    with pytest.raises(ResearchRefused, match="SENTINEL_FOLDERS__SOURCES"):
        research_target(nested)


def test_a_record_never_overwrites_material_someone_put_there(research_vault: MakeVault) -> None:
    question = "What is the growth queue?"
    settings = research_vault()
    pasted = settings.vault / source_record_path(question, settings)
    pasted.parent.mkdir()
    pasted.write_text("# An article I typed up\n\nIts text.\n", encoding="utf-8")
    with pytest.raises(RecordRefused, match="not a source record"):
        write_record(settings.vault, source_record_path(question, settings), _run(DEFINING))
    assert pasted.read_text(encoding="utf-8") == "# An article I typed up\n\nIts text.\n"


def test_the_record_format_reads_back_what_was_written(tmp_path: Path) -> None:
    run = _run(DEFINING, "A passage with [[brackets]] and a #tag, kept as the page had it.")
    run.unusable.append(Unusable("https://example.org/gone", "HTTP 410"))
    written = write_record(tmp_path, "sources/q.md", run)
    text = (tmp_path / "sources/q.md").read_text(encoding="utf-8")
    post = frontmatter.loads(text)
    assert written.created and written.added == 2
    assert post.metadata["urls"] == ["https://example.org/queues"]
    assert recorded_passages(post.content) == [("https://example.org/queues", p.text) for p in run.passages]
    assert "- <https://example.org/gone>: HTTP 410" in post.content
    assert "#### Queues\nURL: <https://example.org/queues>\nFetched: 2026-12-01T10:00:00Z · sha256: abab" in text


def test_records_and_pasted_articles_speak_at_the_body_rung_only_and_place_no_links(research_vault: MakeVault) -> None:
    settings = research_vault(
        {
            "notes/Kettle.md": "# Kettle\n\nOur kettle needs care.\n",
            "sources/Pasted article.md": "# Descaling study\n\nCitric acid descales a kettle. See [[Vinegar]].\n",
        }
    )
    relpath = source_record_path("How do I descale a kettle?", settings)
    write_record(settings.vault, relpath, _run("Descaling a kettle with citric acid works best. See [[Lemons]]."))
    os.utime(settings.vault / relpath)
    db = open_index(settings)
    sync(settings, db)
    body = {hit.path for hit in search(db, settings, None, "citric acid descales", rung="body", limit=10).hits}
    summary = {hit.path for hit in search(db, settings, None, "citric acid descales", limit=10).hits}
    assert body >= {relpath, "sources/Pasted article.md"}
    assert summary.isdisjoint({relpath, "sources/Pasted article.md"})
    links = db.execute("SELECT target, places FROM links WHERE source LIKE 'sources/%' ORDER BY target").fetchall()
    assert [tuple(row) for row in links] == [("Lemons", 0), ("Vinegar", 0)]
    assert {"Lemons", "Vinegar"}.isdisjoint(u.name for u in unresolved(db))  # never in the growth queue
    db.close()


def test_a_concept_page_from_a_record_lists_the_record(research_vault: MakeVault, run_maintain: RunPass) -> None:
    settings = research_vault(
        {"notes/maintenance.md": "# Maintenance\n\nThe nightly pass shrinks the [[growth queue]].\n"}
    )
    relpath = source_record_path("What is the growth queue?", settings)
    write_record(settings.vault, relpath, _run(DEFINING, DEFINING_TOO))
    model = ScriptedModel(defining=lambda name, sentences: [i for i, s in enumerate(sentences, 1) if "is the" in s])
    done = run_maintain(settings, model)
    assert done.report.concept_pages_written == ["wiki/growth queue.md"]
    page = frontmatter.loads((settings.vault / "wiki/growth queue.md").read_text(encoding="utf-8"))
    assert page.metadata["sources"] == [relpath]
    assert f"- [[{relpath.removesuffix('.md')}]]" in page.content
    # The chain walks back: page -> record -> passage -> URL.
    record = (settings.vault / relpath).read_text(encoding="utf-8")
    assert ("https://example.org/queues", DEFINING) in recorded_passages(frontmatter.loads(record).content)
    assert all(quote["source"] == relpath for quote in page.metadata["quotes"])


def test_a_record_edited_by_hand_is_refreshed_without_losing_anything(tmp_path: Path) -> None:
    write_record(tmp_path, "sources/q.md", _run(DEFINING))
    path = tmp_path / "sources/q.md"
    edited = path.read_text(encoding="utf-8").replace(
        "urls:\n- https://example.org/queues\n", "urls: https://by.hand/\n"
    )
    path.write_text(edited + "\nMy own remark.\n", encoding="utf-8")
    again = write_record(tmp_path, "sources/q.md", _run(DEFINING, DEFINING_TOO, url="https://example.org/other"))
    post = frontmatter.loads(path.read_text(encoding="utf-8"))
    assert post.metadata["urls"] == ["https://by.hand/", "https://example.org/other"]
    assert "My own remark." in post.content and post.content.count("## Asked ") == 2
    assert (again.added, again.repeated) == (2, 0)  # another URL: its passages are new even where the text is not


def test_long_paragraphs_are_cut_at_sentence_ends_into_slices_of_the_text() -> None:
    from sentinel.research.choose import split_passages
    from sentinel.settings import ResearchSettings

    paragraph = " ".join(f"Sentence {i} of this paragraph has nine words here." for i in range(9))
    text = f"- A list item that is long enough to count as a passage here.\n{paragraph}\nshort"
    passages = split_passages(text, ResearchSettings(passage_max_words=20, passage_min_chars=40))
    assert passages[0] == "A list item that is long enough to count as a passage here."  # no list marker
    assert all(p in text for p in passages) and "short" not in passages
    assert [len(p.split()) for p in passages[1:]] == [18, 18, 18, 18, 9]
    assert " ".join(passages[1:]) == paragraph
