"""End to end with the real small model (Qwen2.5-Coder-0.5B via llama.cpp's OpenAI-compatible server) over a
small real vault: summaries written, every kept concept verbatim in its page, and no concept page without two
defining sentences quoted verbatim from the sources it lists."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import frontmatter
import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.maintain import trace
from sentinel.maintain.models import Models
from sentinel.providers import provider_for
from sentinel.settings import ProviderSettings
from sentinel.vault.links import text_without_link_markup
from tests.support.embedder import E5_DIR
from tests.support.eval_data import require_eval_vault
from tests.support.maintain_pass import RunPass
from tests.support.vault import WriteVault

pytestmark = pytest.mark.slow

OWN_NOTES = {
    "notes/Maintenance.md": "# Maintenance\n\nEvery night the pass works through the [[growth queue]] and the "
    "[[definition gate]].\n",
    "notes/Queue.md": "# Queue\n\nThe growth queue is the list of names that links point to but no page answers "
    "to yet.\n",
    "sources/Design notes.md": "# Design notes\n\nIn this design, the growth queue is the set of unresolved link "
    "targets, counted by how many pages reach for them.\n\nThe definition gate is mentioned here only.\n",
}
EVAL_PAGES = ["Files and folders/Accepted file formats.md", "Files and folders/Configuration folder.md"]


def _visible(text: str) -> str:
    body = frontmatter.loads(text).content
    return re.sub(r"\s+", " ", text_without_link_markup(body)).casefold()


@pytest.mark.timeout(2400)  # a busy machine slows the 0.5B model several times
def test_real_model_pass_keeps_every_gate(
    vault_settings: WriteVault, run_maintain: RunPass, llama_settings: ProviderSettings
) -> None:
    settings = vault_settings(OWN_NOTES)
    for page in EVAL_PAGES:
        target = settings.vault / "notes" / Path(page).name
        shutil.copyfile(require_eval_vault() / "en" / page, target)
    settings = settings.model_copy(
        update={"concept_pages_per_pass": 6, "concept_max_paragraphs": 4, "resolve_max_pairs": 4}
    )
    model = provider_for(llama_settings, "extraction")
    embedder = OnnxEmbedder(E5_DIR, threads=1)
    done = run_maintain(settings, Models(model, model, llama_settings.model), embedder=lambda: embedder, minutes=20)
    print("\n".join(done.lines))
    # Embedding ran last, over the summaries this pass wrote.
    assert done.report.embedded > 0
    assert done.db.execute("SELECT COUNT(*) FROM summary_vectors").fetchone()[0] >= len(OWN_NOTES)
    rows = {r["path"]: r for r in done.db.execute("SELECT * FROM analysis")}
    analysable = {p.relative_to(settings.vault).as_posix() for p in settings.vault.rglob("*.md")} - {
        p for p in done.report.concept_pages_written
    }
    assert analysable <= set(rows), f"not analysed: {analysable - set(rows)}"
    for path, row in rows.items():
        assert row["status"] == "ok", f"{path}: {row['reason']}"
        assert row["summary"].strip(), f"{path}: no summary"
        text = (settings.vault / path).read_text(encoding="utf-8")
        seen = f"title: {Path(path).stem.casefold()} " + _visible(text)
        for concept in json.loads(row["concepts"]):
            assert re.sub(r"\s+", " ", concept).casefold() in seen, f"{path}: {concept!r} is not in the page"
    # Not vacuous: "growth queue" has two sentences of definitional shape in two sources, so the model was
    # asked about it and the gate decided (written, or held back on the model's answers); "definition gate" is
    # only mentioned, and whatever the model answers no page is written for it.
    decided = [line for line in done.lines if line.startswith("  growth queue: ")]
    assert decided and ("written" in decided[0] or "defining sentence" in decided[0] or "never defined" in decided[0])
    assert "not asked" not in decided[0] and "no paragraph" not in decided[0]
    assert "wiki/definition gate.md" not in done.report.concept_pages_written
    if "wiki/growth queue.md" in done.report.concept_pages_written:
        assert done.report.ledger, "a pass that wrote a page has a ledger"
    for written in done.report.concept_pages_written:
        page = frontmatter.loads((settings.vault / written).read_text(encoding="utf-8"))
        name = page.content.splitlines()[0].removeprefix("# ")
        quotes = re.findall(r"^> (?!— )(.*)\n> — \[\[(.*?)\|", page.content, re.MULTILINE)
        assert len(quotes) >= 2, f"{written} has {len(quotes)} defining sentences"
        for sentence, source in quotes:
            assert name.casefold() in sentence.casefold()
            source_text = _visible((settings.vault / f"{source}.md").read_text(encoding="utf-8"))
            assert re.sub(r"\s+", " ", sentence).casefold() in source_text, f"{written}: not verbatim in {source}"
        assert sorted(page.metadata["sources"]) == sorted({f"{s}.md" for _, s in quotes})
        assert not trace.trace_page(settings, written).broken  # its provenance checks out
