"""``sentinel trace``: a generated page's quotes walked back to their sources and re-checked against them now."""

from __future__ import annotations

import frontmatter
import pytest
from typer.testing import CliRunner

from sentinel.cli import app
from sentinel.maintain import trace
from sentinel.maintain.health import health_line
from sentinel.settings import Settings
from sentinel.tools.context import Origin, ToolContext
from sentinel.tools.write import write
from sentinel.vault.hashes import edit_hash
from tests.support.maintain_pass import Pass, RunPass, ScriptedModel
from tests.support.vault import WriteVault

PAGE = "wiki/growth queue.md"
FIRST = "The growth queue is the list of names that links reach for and no page answers to."
SECOND = "In short, the growth queue is the set of unresolved link targets."
FILES = {
    "notes/maintenance.md": "# Maintenance\n\nThe nightly pass shrinks the [[growth queue]].\n",
    "sources/queues.md": f"# Queues\n\n## Growth\n\n{FIRST}\n",
    "notes/graph.md": f"Notes on it.\n\n{SECOND} It grows daily.\n",
}


def agrees(name: str, sentences: list[str]) -> list[int]:
    return list(range(1, len(sentences) + 1))


@pytest.fixture
def generated(vault_settings: WriteVault, run_maintain: RunPass) -> tuple[Settings, Pass]:
    settings = vault_settings(FILES)
    done = run_maintain(settings, ScriptedModel(defining=agrees))
    assert done.report.concept_pages_written == [PAGE]
    return settings, done


def _states(settings: Settings) -> dict[str, str]:
    return {q.sentence: q.state for q in trace.trace_page(settings, PAGE).quotes}


def _cli(settings: Settings, target: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["trace", target, "--vault", str(settings.vault), "--index", str(settings.index_path)]
    )
    return result.exit_code, result.output


def test_an_intact_chain(generated: tuple[Settings, Pass]) -> None:
    settings, _ = generated
    meta = frontmatter.loads((settings.vault / PAGE).read_text(encoding="utf-8")).metadata
    first = next(q for q in meta["quotes"] if q["sentence"] == FIRST)
    source_text = (settings.vault / "sources/queues.md").read_text(encoding="utf-8")
    start, end = first["span"]
    assert source_text.split("\n", 4)[-1].startswith(FIRST) and end - start == len(FIRST)
    assert first["heading"] == "Queues > Growth" and len(first["source_sha256"]) == 64
    found = trace.trace_page(settings, PAGE)
    assert not found.broken and not found.edited
    assert _states(settings) == {FIRST: "intact", SECOND: "intact"}
    code, output = _cli(settings, PAGE)
    assert code == 0 and f"{PAGE}: intact" in output and "sources/queues.md under 'Queues > Growth': intact" in output
    code, output = _cli(settings, "set of unresolved link targets")  # a sentence leads to the page quoting it
    assert code == 0 and PAGE in output


def test_an_edited_quote(generated: tuple[Settings, Pass]) -> None:
    settings, _ = generated
    page = settings.vault / PAGE
    head, body = page.read_text(encoding="utf-8").rsplit("---\n", 1)  # a hand edit of the body only
    page.write_text(head + "---\n" + body.replace(SECOND, "The growth queue is a spaceship."), "utf-8")
    found = trace.trace_page(settings, PAGE)
    assert found.broken and found.edited
    states = _states(settings)
    assert states["The growth queue is a spaceship."].startswith("not in the provenance record")
    assert states[SECOND] == "removed from the page after generation"
    code, output = _cli(settings, PAGE)
    assert code == 1 and "BROKEN" in output and "edited after generation outside Sentinel's tools" in output


def test_a_changed_source(generated: tuple[Settings, Pass]) -> None:
    settings, _ = generated
    source = settings.vault / "sources/queues.md"
    source.write_text(source.read_text(encoding="utf-8") + "\nMore words, later.\n", encoding="utf-8")
    assert _states(settings)[FIRST].startswith("the source changed; the quote is still in it")
    source.write_text("# Queues\n\nThe growth queue is something else now.\n", encoding="utf-8")
    assert _states(settings)[FIRST] == "the source changed and no longer says it"
    assert _states(settings)[SECOND] == "intact"


def test_a_deleted_source(generated: tuple[Settings, Pass]) -> None:
    settings, _ = generated
    (settings.vault / "notes/graph.md").unlink()
    assert _states(settings)[SECOND] == "the source is gone"


LIE = "The growth queue is whatever the assistant says it is."


def test_a_chat_replace_takes_off_generated_by_and_sources_and_says_it_was_a_chat(
    generated: tuple[Settings, Pass], run_maintain: RunPass
) -> None:
    settings, _ = generated
    page = settings.vault / PAGE
    before = page.read_text(encoding="utf-8")
    recorded = frontmatter.loads(before).metadata
    # The model sends the page back with the quote changed and every key of the frontmatter kept (a forged
    # record too): what lands keeps the pass's record as the pass wrote it and claims nothing.
    forged = before.replace(FIRST, LIE).replace(recorded["body_sha256"], "0" * 64)
    ctx = ToolContext(settings=settings, origin=Origin.MODEL)
    assert write(ctx, PAGE, forged, mode="replace", expected_hash=edit_hash(before)).status.name == "OK"
    written = frontmatter.loads(page.read_text(encoding="utf-8"))
    assert "generated_by" not in written.metadata and "sources" not in written.metadata
    assert written.metadata["edited_by"] == "chat" and written.metadata["edited_at"]
    assert written.metadata["quotes"] == recorded["quotes"]
    assert written.metadata["body_sha256"] == recorded["body_sha256"]
    assert LIE in written.content
    found = trace.trace_page(settings, PAGE)
    assert found.generated and found.broken and found.edited and found.edited_by == "chat"
    assert _states(settings)[LIE].startswith("not in the provenance record")
    assert _states(settings)[FIRST] == "removed from the page after generation"
    code, output = _cli(settings, PAGE)
    assert code == 1 and "edited after generation by a chat write at " in output
    # The nightly pass re-verifies, names the page in the health line, and does not rewrite it.
    landed = page.read_text(encoding="utf-8")
    done = run_maintain(settings, ScriptedModel(defining=agrees))
    assert done.report.broken_generated == [PAGE]
    assert PAGE in health_line(done.db) and "sentinel trace" in health_line(done.db)
    assert page.read_text(encoding="utf-8") == landed


def test_a_chat_append_is_stamped_too(generated: tuple[Settings, Pass]) -> None:
    settings, _ = generated
    ctx = ToolContext(settings=settings, origin=Origin.MODEL)
    assert write(ctx, PAGE, f"> {LIE}\n> — [[sources/queues|queues]]", mode="append").status.name == "OK"
    found = trace.trace_page(settings, PAGE)
    assert found.edited_by == "chat" and _states(settings)[LIE].startswith("not in the provenance record")
    assert _states(settings)[FIRST] == "intact"  # what the pass quoted still checks out


def test_a_chat_cannot_claim_a_page_of_its_own_is_generated(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/a.md": "Some text.\n"})
    ctx = ToolContext(settings=settings, origin=Origin.MODEL)
    claim = f"---\ngenerated_by: {trace.GENERATED_BY}\ntags: [x]\n---\n> {LIE}\n> — [[notes/a|a]]\n"
    assert write(ctx, "notes/b.md", claim).status.name == "OK"
    written = frontmatter.loads((settings.vault / "notes/b.md").read_text(encoding="utf-8"))
    assert written.metadata == {"tags": ["x"]} and not trace.trace_page(settings, "notes/b.md").generated
    edited = f"---\nedited_by: chat\nquotes:\n- sentence: {LIE}\n  source: notes/a.md\n---\n> {LIE}\n"
    assert write(ctx, "notes/c.md", edited).status.name == "OK"
    assert frontmatter.loads((settings.vault / "notes/c.md").read_text(encoding="utf-8")).metadata == {}


@pytest.mark.parametrize("label", ["Record:", "Kayıt:"])  # a note saved in Turkish (vault.record_line)
def test_a_quote_from_a_note_is_walked_to_its_transcript(
    vault_settings: WriteVault, run_maintain: RunPass, label: str
) -> None:
    record = f"{label} [[2026-12-01-1]]"
    files = {
        **FILES,
        "notes/graph.md": f"Notes on it.\n\n{SECOND} It grows daily.\n\n{record}\n",
        "conversations/2026-12-01-1.md": "---\ntype: transcript\n---\n# 2026-12-01-1\n\n## user\n\nhi\n",
    }
    settings = vault_settings(files)
    assert run_maintain(settings, ScriptedModel(defining=agrees)).report.concept_pages_written == [PAGE]
    step = {q.sentence: q.transcript for q in trace.trace_page(settings, PAGE).quotes}
    assert step[SECOND] == f"notes/graph.md line 5 '{record}' -> conversations/2026-12-01-1.md: there"
    assert step[FIRST] == ""  # a source record, not a note: no transcript step
    code, output = _cli(settings, PAGE)
    assert code == 0 and "<- recorded from a conversation: notes/graph.md line 5" in output
    (settings.vault / "conversations/2026-12-01-1.md").unlink()
    gone = {q.sentence: q.transcript for q in trace.trace_page(settings, PAGE).quotes}[SECOND]
    assert gone.endswith("conversations/2026-12-01-1.md: GONE")


def test_a_page_people_wrote_is_not_traced(vault_settings: WriteVault) -> None:
    settings = vault_settings({"wiki/Mine.md": "# Mine\n\n> A quote of my own.\n> — [[notes/x|x]]\n"})
    found = trace.trace_page(settings, "wiki/Mine.md")
    assert not found.generated and not found.broken
