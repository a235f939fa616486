"""One fold for the index and the query, through ``search()`` (real SQLite FTS5, lexical leg, no model).

Each language's pages share no spelling with the query but the fold: a test fails when either side folds
differently from the other (the Turkish ``ı`` bug: the index folded it, the query did not).
"""

from __future__ import annotations

import pytest

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from tests.support.vault import WriteVault, index_before, top_hit

PAGES = {
    "notes/Çalışma alanı.md": "# Çalışma alanı\n\nKaydedilmiş düzen: açık sekmeler ve kenar çubukları.",
    "notes/İstanbul.md": "# Şehir\n\nİSTANBUL OFİSİ ılık bir yerde.",
    "notes/Straße.md": "# Adresse\n\nDie Straße und die Größe der Wohnung; Grüße an die Nachbarn.",
    "notes/Año.md": "# Calendario\n\nEl año nuevo empieza en enero; la canción del niño.",
    "notes/知识.md": "# 笔记\n\n知识管理系统的设计原则。",
    "notes/ノート.md": "# メモ\n\n新しいノートを作成する方法。",
    "notes/한국어.md": "# 메모\n\n데이터베이스를 백업하는 방법.",
    "notes/English.md": "# Workspace\n\nCalisma is not a word here; strasse neither.",
}


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("çalışma", "notes/Çalışma alanı.md"),  # tr: dotless ı on both sides
        ("CALISMA ALANI", "notes/Çalışma alanı.md"),  # tr: written without Turkish letters
        ("düzen sekmeleri", "notes/Çalışma alanı.md"),
        ("istanbul ofisi", "notes/İstanbul.md"),  # tr: dotted capital İ
        ("ilik", "notes/İstanbul.md"),
        ("strasse", "notes/Straße.md"),  # de: ß is ss
        ("GRÖSSE", "notes/Straße.md"),
        ("grüsse", "notes/Straße.md"),
        ("gruse", ""),  # umlauts drop their dots, not their letters
        ("ano nuevo", "notes/Año.md"),  # es: ñ is n
        ("cancion nino", "notes/Año.md"),  # es: accents
        ("知识管理", "notes/知识.md"),  # zh: no spaces between words
        ("设计", "notes/知识.md"),
        ("ノートを作成", "notes/ノート.md"),  # ja
        ("데이터베이스", "notes/한국어.md"),  # ko: a word inside a word with its particle
    ],
)
def test_every_language_folds_the_same_on_both_sides(vault_settings: WriteVault, query: str, page: str) -> None:
    settings = vault_settings(PAGES)
    db = open_index(settings)
    sync(settings, db)
    assert top_hit(settings, db, query) == page


def test_an_index_folded_the_old_way_is_folded_again(vault_settings: WriteVault) -> None:
    settings = vault_settings(PAGES)
    # the schema before the one fold, with its own triggers
    old = index_before(settings, 3, "notes/x.md", "Çalışma alanı ve Straße")
    assert old.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'calisma'").fetchall() == [(1,)]
    assert old.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'strasse'").fetchall() == []
    old.close()
    db = open_index(settings)  # migrates
    assert [r[0] for r in db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'strasse'")] == [1]
    db.execute("DELETE FROM chunks")  # the new delete trigger removes exactly what the new fold wrote
    db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
    assert db.execute("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH 'strasse'").fetchone()[0] == 0
