"""A question's word is also matched where the index holds it only as the last part of a longer word (round
twelve, ``compounds.with_heads``).

"Wiederherstellung" asked, "Datenwiederherstellung" written: one token each, so bm25 never met the page that
compounds the word. The longer words come from the index's own vocabulary, in any language. Real SQLite FTS5,
no model (the lexical leg alone, as ``top_hit`` runs it).
"""

from __future__ import annotations

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import compounds
from sentinel.search.fts_query import Terms
from sentinel.search.lexical import lexical_terms
from tests.search.test_language_common import _with_languages
from tests.support.vault import WriteVault, top_hit


def _pages() -> dict[str, str]:
    return {
        # the answer says the asked word only inside its compounds
        "de/Datenwiederherstellung.md": (
            "# Datenwiederherstellung\n\nDie Datenwiederherstellung hält Schnappschüsse; jede "
            "Datenwiederherstellung beginnt in den Einstellungen."
        ),
        # a page that says the word once, among many others
        "de/Allgemein.md": (
            "# Allgemein\n\nNach einer Wiederherstellung des Systems öffnet die App die letzte Sitzung, die "
            "Fenster, die Seitenleiste, die Tabs und die Lesezeichen wieder."
        ),
        "en/Footnotes.md": "# Footnotes\n\nFootnotes sit at the end of a page; footnotes are numbered.",
        "en/Other.md": "# Other\n\nA page about many things, one of them notes, and colours and shapes and sizes.",
    }


def test_a_page_holding_the_asked_word_only_in_a_compound_comes_first(vault_settings: WriteVault) -> None:
    settings = vault_settings(_pages())
    db = open_index(settings)
    sync(settings, db)
    _with_languages(db, ["de", "en"])
    chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    # without the compounds the only page holding the asked word as a token came first
    assert top_hit(settings, db, "Wiederherstellung") == "de/Datenwiederherstellung.md"
    # English alike: no language list decides it
    assert top_hit(settings, db, "notes") == "en/Footnotes.md"
    terms = lexical_terms(db, "Wiederherstellung", chunks)
    assert terms.words[0] == "wiederherstell"
    assert "datenwiederherstell" in terms.words  # the compound, from the index's vocabulary


def test_only_long_held_words_take_compounds_the_most_common_first(vault_settings: WriteVault) -> None:
    pages = {f"en/P{i}.md": f"# P{i}\n\n{' '.join(f'ab{j:02d}notes' for j in range(i + 1))} notes" for i in range(25)}
    settings = vault_settings(pages)
    db = open_index(settings)
    sync(settings, db)
    found = compounds.with_heads(db, Terms(["notes", "note", "unheldword"], [], {"notes": 25, "note": 0}))
    added = found.words[3:]
    # "note" is under MIN_HEAD letters, "unheldword" no chunk holds: neither takes compounds
    assert found.words[:3] == ["notes", "note", "unheldword"]
    assert len(added) == compounds.HEADS_PER_WORD
    assert added[:2] == ["ab00notes", "ab01notes"]  # in 25 and 24 chunks: the most common first
    assert all(found.frequencies[w] >= found.frequencies[added[-1]] for w in added)
