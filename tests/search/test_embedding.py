"""Incremental embedding with the real model: keyed by text, never mixing two models, truncation reported."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from functools import partial

import numpy as np
import pytest

from sentinel.embed.base import Embedding, EmbedKind
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import VectorsFromAnotherModel, centres, embed_pending, search
from sentinel.search.embedding import _texts_of, chunk_passage, summary_passages
from sentinel.search.vectors import restore
from tests.support.embedder import E5_DIR
from tests.support.vault import WriteVault

pytestmark = pytest.mark.slow

PAGES = {
    "notes/Garden.md": "---\ndescription: How I keep the vegetable garden.\n---\n# Soil\n\nCompost every spring.\n\n"
    "# Water\n\nWater tomatoes in the morning, never at noon.\n",
    "notes/Bahçe.md": "# Toprak\n\nHer baharda kompost eklenir.\n\n# Sulama\n\nDomatesler sabah sulanır, öğlen asla.\n",
    "sources/Article.md": "# Irrigation study\n\nDrip irrigation saves water compared with sprinklers.\n",
}


class Recording:
    """The real embedder, with a record of what it was asked (to see which texts and kinds reached it)."""

    def __init__(self, inner: OnnxEmbedder) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.calls: list[tuple[EmbedKind, list[str]]] = []

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> Embedding:
        self.calls.append((kind, list(texts)))
        return self.inner.embed(texts, kind)

    def texts(self, kind: EmbedKind) -> list[str]:
        return [t for k, batch in self.calls if k == kind for t in batch]


def _count(db: sqlite3.Connection, table: str) -> int:
    return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def test_vectors_are_passages_and_queries_are_queries(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    recording = Recording(e5)
    counts = embed_pending(db, recording)
    assert counts.chunks == _count(db, "chunks") and recording.calls
    assert all(kind == "passage" for kind, _ in recording.calls)
    trail, text = db.execute("SELECT trail, text FROM chunks WHERE path = 'notes/Garden.md' LIMIT 1").fetchone()
    vec, scale = db.execute(
        "SELECT vec, scale FROM chunk_vectors v JOIN chunks c ON c.text_hash = v.text_hash AND c.trail = v.trail "
        "WHERE c.path = 'notes/Garden.md' AND c.trail = ?",
        (trail,),
    ).fetchone()
    stored = restore([vec], [scale], e5.identity.dims)[0]
    fresh = e5.embed([chunk_passage(trail, text)], "passage").vectors[0]
    # int8 storage alone keeps cosine >= .9999; the dynamic-int8 model itself varies a little with what else
    # is in the batch (activation ranges are per batch), hence the looser bound.
    assert float(stored @ fresh) / float(np.linalg.norm(stored)) > 0.995
    recording.calls.clear()
    search(db, settings, recording, "when to water tomatoes")
    assert recording.calls == [("query", ["when to water tomatoes"])]  # the query side gets e5's query prefix


def test_only_changed_text_is_embedded_again(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    first = embed_pending(db, e5)
    assert first.chunks > 0 and first.summaries > 0
    recording = Recording(e5)
    assert embed_pending(db, recording).chunks == 0 and recording.calls == []

    sync(settings, db, rebuild=True)  # new chunk ids, same text: nothing to embed
    assert embed_pending(db, recording).chunks == 0 and recording.calls == []

    garden = settings.vault / "notes/Garden.md"
    garden.write_text(garden.read_text().replace("never at noon", "never in the midday sun"), encoding="utf-8")
    sync(settings, db)
    again = embed_pending(db, recording)
    assert again.chunks == 1  # only the edited section
    assert recording.texts("passage") == ["Garden > Water\n\nWater tomatoes in the morning, never in the midday sun."]
    assert again.removed == 1  # the old section's vector is no longer used by any chunk


def test_another_model_is_refused_until_reembed(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    other = OnnxEmbedder(E5_DIR, threads=2, batch=32, model_file="model_fp32.onnx")  # another file: another model
    assert other.identity != e5.identity
    with pytest.raises(VectorsFromAnotherModel, match=r"sentinel embed --reembed"):
        embed_pending(db, other)

    found = search(db, settings, other, "watering tomatoes")
    assert found.hits, "the lexical leg still answers"
    assert any("--reembed" in note for note in found.notes)

    counts = embed_pending(db, other, reembed=True)
    assert counts.chunks == _count(db, "chunks") and counts.summaries > 0
    recorded = json.loads(db.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()[0])
    assert recorded["file_hash"] == other.identity.file_hash
    assert not search(db, settings, other, "watering tomatoes").notes


def test_truncation_is_reported(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    # 240 "words" that the tokenizer splits into many tokens each (~4,500): past every window e5 reads.
    dense = " ".join(f"x{i}q{i * 7}z{i * 13}k{i * 17}w{i * 19}j{i * 23}v{i * 29}" for i in range(240))
    # one unit of all 240 (the default 120-word windows would cut it in two, each under the windows' reach)
    settings = vault_settings({"notes/Codes.md": f"# Codes\n\n{dense}\n", **PAGES}).model_copy(
        update={"chunk_words": 250}
    )
    db = open_index(settings)
    sync(settings, db)
    counts = embed_pending(db, e5)
    assert counts.truncated == ["notes/Codes.md > Codes > Codes"]
    assert db.execute("SELECT truncated FROM chunk_vectors WHERE trail = 'Codes > Codes'").fetchone()[0] == 1


EN = [
    ("Bread", "Bake the bread at a high heat until the crust is dark and sounds hollow when you knock on it."),
    ("Garden", "Water the tomatoes early in the morning and never in the heat of the afternoon sun."),
    ("Bicycle", "Check the pressure of both tyres every week and oil the chain after riding in the rain."),
    ("Taxes", "Keep every receipt in one folder during the year so the tax return takes an evening."),
]
DE = [
    ("Brot", "Das Brot wird bei hoher Hitze gebacken, bis die Kruste dunkel ist und hohl klingt."),
    ("Garten", "Die Tomaten werden früh am Morgen gegossen und niemals in der Hitze des Nachmittags."),
    ("Fahrrad", "Den Druck beider Reifen jede Woche prüfen und die Kette nach einer Fahrt im Regen ölen."),
    (
        "Steuern",
        "Alle Belege das ganze Jahr über in einem Ordner sammeln, dann dauert die Steuererklärung einen Abend.",
    ),
]


def _sections(title: str, sentence: str) -> str:
    return f"# {title}\n\n{sentence}\n\n## 1\n\n{sentence}\n\n## 2\n\n{sentence}\n\n## 3\n\n{sentence}\n"


def test_summaries_go_first_and_end_on_the_chunk_tables_languages(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    """Summaries are embedded before chunks (one vector per page first); once the chunks are in, the summary
    table's centres are the chunk table's languages moved onto its own vectors, as when chunks went first: a
    forced refresh on those seeds changes nothing. Four pages a language are too few for the summaries to tell
    languages apart on their own, so without the re-seed they would keep a single centre."""
    settings = vault_settings({f"notes/{t}.md": _sections(t, s) for t, s in EN + DE})
    db = open_index(settings)
    sync(settings, db)
    recording = Recording(e5)
    embed_pending(db, recording)
    assert sorted(recording.calls[0][1]) == sorted(summary_passages(db))  # the first batch: every page's summary
    chunk_centres, _ = centres.load(db, "chunk_vectors") or (None, 0)
    summary_centres, _ = centres.load(db, "summary_vectors") or (None, 0)
    assert chunk_centres is not None and summary_centres is not None
    assert chunk_centres.languages == summary_centres.languages == ("de", "en")
    rows = db.execute("SELECT id, centre, bits FROM summary_vectors ORDER BY id").fetchall()
    centres.refresh_if_grown(
        db, "summary_vectors", partial(_texts_of, db, "summary_vectors"), seeds=chunk_centres, force=True
    )
    again, _ = centres.load(db, "summary_vectors") or (None, 0)
    assert again is not None and np.array_equal(again.vectors, summary_centres.vectors)
    assert db.execute("SELECT id, centre, bits FROM summary_vectors ORDER BY id").fetchall() == rows
