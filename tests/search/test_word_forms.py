"""Word forms in the lexical leg (issue 32, round six), through ``search()`` (real SQLite FTS5, no model).

German, Spanish and Turkish words are stemmed on both sides, each chunk in the language it was written in (its
language folder here), so a question meets its page's other inflections; English is not stemmed. A German
compound the index does not hold is read as two words it holds.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.lexical import lexical_terms
from tests.support.vault import WriteVault, index_before, top_hit

PAGES = {
    "de/Sicherung.md": "# Sicherung\n\nLege regelmäßig eine Sicherungskopie deines Tresors auf einem USB-Stick an.",
    "de/Tabellen.md": "# Daten\n\nTabellen aus Excel lassen sich per Import in Notizen übernehmen.",
    "es/Barra.md": "# Barra\n\nPuedes fijar una pestaña en la barra para que no se cierre.",
    "tr/Notlar.md": "# Klasör\n\nNotunuzu başka bir klasöre taşıyabilirsiniz.",
    "en/Rename.md": "# Files\n\nRenaming a file updates every link to it.",
    "en/Other.md": "# Other\n\nA page about something else entirely, the garden and the weather.",
}


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("Sicherungskopien", "de/Sicherung.md"),  # de: plural against singular
        ("pestañas fijadas", "es/Barra.md"),  # es: plural and participle
        ("notlarımı klasörlere", "tr/Notlar.md"),  # tr: possessive and case suffixes
        ("renamed", ""),  # en is not stemmed
    ],
)
def test_an_inflected_question_meets_its_pages_form(vault_settings: WriteVault, query: str, page: str) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    assert top_hit(settings, db, query) == page


def _with_languages(db: sqlite3.Connection, languages: list[str]) -> None:
    """The chunk table's language centres as an embedding run leaves them (the query's language is read among
    their labels); the vectors do not matter to the lexical leg."""
    value = json.dumps({"n": 1, "languages": languages, "vectors": [[1.0, 0.0]] * len(languages)})
    db.execute("INSERT INTO meta (key, value) VALUES ('vector_centres:chunk_vectors', ?)", (value,))


def test_a_german_compound_the_index_lacks_is_read_as_two_words_it_holds(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    _with_languages(db, ["de", "en", "es", "tr"])
    terms = lexical_terms(db, "Wie übernehme ich einen Tabellenimport aus Excel in meine Notizen?", 10)
    assert "tabell" in terms.words and "import" in terms.words
    assert "tabellenimport" not in terms.words
    assert top_hit(settings, db, "Tabellenimport") == "de/Tabellen.md"


def test_an_index_of_the_round_before_is_stemmed_and_its_deletes_stay_exact(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    old = index_before(settings, 10, "de/x.md", "Zwei Sicherungskopien")  # the schema and triggers before m011
    assert old.execute("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH 'sicherungskopi'").fetchone()[0] == 0
    old.close()
    db = open_index(settings)  # migrates
    assert [r[0] for r in db.execute("SELECT language FROM chunks")] == ["de"]
    assert [r[0] for r in db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'sicherungskopi'")] == [1]
    db.execute("DELETE FROM chunks")  # the delete trigger removes exactly what the stemmed fold wrote
    db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
    assert db.execute("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH 'sicherungskopi'").fetchone()[0] == 0


def test_a_page_outside_language_folders_is_stemmed_in_its_language_to_its_shortest_chunk(
    vault_settings: WriteVault,
) -> None:
    """A page's language is read once from its opening words, and every chunk of it, a short one too, is folded
    in it (a short chunk alone is too little for the identifier to be sure of)."""
    prose = (
        "Obsidian speichert deine Notizen als einfache Textdateien in einem Ordner auf deinem Gerät. Du kannst "
        "diesen Ordner jederzeit mit anderen Programmen öffnen, durchsuchen und sichern, ohne dass dafür ein "
        "Konto oder eine Verbindung zum Internet nötig ist."
    )
    settings = vault_settings({"notes/Tresor.md": f"# Tresor\n\n{prose}\n\n## Kopien\n\nZwei Sicherungskopien.\n"})
    db = open_index(settings)
    sync(settings, db)
    rows = db.execute("SELECT text, language FROM chunks WHERE path = 'notes/Tresor.md' ORDER BY ordinal").fetchall()
    assert len(rows) >= 2 and {language for _, language in rows} == {"de"}
    assert top_hit(settings, db, "Sicherungskopie") == "notes/Tresor.md"


def test_a_short_note_of_no_sure_language_is_found_by_a_question_in_a_sure_one(vault_settings: WriteVault) -> None:
    """A one-line note just saved is too short for its language to be sure, so its words stay unstemmed; a
    Spanish question folds "jueves" to "juev", which the note lacks. Without the unstemmed forms the lexical leg
    finds nothing of it until its vector is embedded (seen in the browser: "¿A quién tenía que llamar el
    jueves?" after saving "El jueves quiero llamar a Marta ...": "the vault does not say")."""
    note = "notes/El jueves quiero llamar a Marta.md"
    settings = vault_settings({**PAGES, note: "El jueves quiero llamar a Marta para revisar la plantilla de mi tesis."})
    db = open_index(settings)
    sync(settings, db)
    _with_languages(db, ["de", "en", "es", "tr"])
    assert {r[0] for r in db.execute("SELECT language FROM chunks WHERE path = ?", (note,))} == {""}
    terms = lexical_terms(db, "¿A quién tenía que llamar el jueves?", 10)
    assert "juev" in terms.words  # the question is read as Spanish, surely
    assert {"jueves", "llamar"} <= set(terms.words)  # and asks the note's own, unstemmed forms too
    assert top_hit(settings, db, "¿A quién tenía que llamar el jueves?") == note
