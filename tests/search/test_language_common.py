"""A word is common among the chunks of its own language (round nine, ``lexical.language_rows``).

In a vault of several languages, a German function word sits in many German chunks but in few of all chunks;
counted against all of them it stayed in German questions and pulled up pages that share only such words.
Real SQLite FTS5, no model (the lexical leg alone, as ``top_hit`` runs it).
"""

from __future__ import annotations

import json
import sqlite3

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.lexical import LANGUAGE_COUNTS, language_rows, lexical_terms
from tests.support.vault import WriteVault, top_hit

FILLER_DE = ["Regen", "Wolke", "Sonne", "Garten", "Fenster", "Stuhl", "Tisch", "Lampe", "Teppich", "Spiegel"]


def _pages() -> dict[str, str]:
    pages = {
        # the answer: the question's one rare word, twice
        "de/Vorlagen.md": "# Muster\n\nJede Vorlage fügt Text ein. Eine Vorlage liegt im Musterordner.",
        # a page that shares the rare word once and a German function word
        "de/Allgemein.md": "# Allgemein\n\nWenn du magst, nimm eine Vorlage.",
    }
    # "wenn" in 10 of the 20 German chunks (half of them) but in 10 of 200 chunks (5%, under the share of all)
    for i, word in enumerate(FILLER_DE):
        pages[f"de/Wenn{i}.md"] = f"# Seite {i}\n\nWenn es {word} gibt, bleibt der {word} still."
        pages[f"de/Ohne{i}.md"] = f"# Blatt {i}\n\nDer {word} steht am Haus."
    for i in range(180):
        pages[f"en/Page{i}.md"] = f"# Page {i}\n\nA note about topic number {i} and its colour."
    return pages


def _with_languages(db: sqlite3.Connection, languages: list[str]) -> None:
    """The chunk table's language centres as an embedding run leaves them (the query's language is read among
    their labels); the vectors do not matter to the lexical leg."""
    value = json.dumps({"n": 1, "languages": languages, "vectors": [[1.0, 0.0]] * len(languages)})
    db.execute("INSERT INTO meta (key, value) VALUES ('vector_centres:chunk_vectors', ?)", (value,))


QUESTION = "Was passiert, wenn ich meine Vorlage einfüge?"


def test_a_word_common_in_its_language_is_dropped_though_rare_in_the_vault(vault_settings: WriteVault) -> None:
    settings = vault_settings(_pages())
    db = open_index(settings)
    sync(settings, db)
    _with_languages(db, ["de", "en"])
    chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    # with the function word kept, the page sharing it and the rare word once came first
    assert top_hit(settings, db, QUESTION) == "de/Vorlagen.md"
    terms = lexical_terms(db, QUESTION, chunks)
    assert "vorlag" in terms.words
    assert "wenn" not in terms.words
    assert language_rows(db, "de", chunks) == 22 and chunks == 202


def test_an_unknown_language_counts_every_chunk(vault_settings: WriteVault) -> None:
    settings = vault_settings({"en/A.md": "# A\n\nSome text.", "de/B.md": "# B\n\nEin Text."})
    db = open_index(settings)
    sync(settings, db)
    assert language_rows(db, "de", 2) == 1
    assert language_rows(db, "", 2) == 2
    assert language_rows(db, "fr", 2) == 2  # a language no chunk holds


def test_the_language_count_reads_an_index_not_every_chunk(vault_settings: WriteVault) -> None:
    """``language_rows`` counts once per index change; from the table it read every chunk's row (10k synthetic
    pages: 65-88 ms CPU), from m012's index 8 ms."""
    settings = vault_settings({"de/B.md": "# B\n\nEin Text."})
    db = open_index(settings)
    plan = " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {LANGUAGE_COUNTS}"))
    assert "COVERING INDEX chunks_language" in plan
