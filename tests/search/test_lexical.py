"""The lexical leg over a real index: a query of common words only (real SQLite FTS5, no model)."""

from __future__ import annotations

from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search.lexical import lexical_chunks, lexical_terms
from tests.support.vault import WriteVault

# Twelve one-chunk pages: "alpha" is in all of them, "beta" in eight, "gamma" in seven; all three are common.
BODIES = ["alpha beta gamma"] * 4 + ["alpha beta"] * 4 + ["alpha gamma"] * 3 + ["alpha"]


def test_common_words_only_match_chunks_holding_all_of_them_first_then_any(vault_settings: WriteVault) -> None:
    settings = vault_settings({f"notes/P{i:02}.md": f"{body}.\n" for i, body in enumerate(BODIES, 1)})
    db = open_index(settings)
    sync(settings, db)
    terms = lexical_terms(db, "alpha beta gamma", len(BODIES))
    assert terms.words == terms.common == ["beta", "gamma"]  # alpha, in every chunk, cannot rank

    found = lexical_chunks(db, terms, limit=20)
    path_of = dict(db.execute("SELECT id, path FROM chunks").fetchall())
    pages = [path_of[c] for c in found]
    assert sorted(pages[:4]) == [f"notes/P{i:02}.md" for i in range(1, 5)]  # both words
    assert sorted(pages[4:]) == [f"notes/P{i:02}.md" for i in range(5, 12)]  # either word fills the rest
    assert lexical_chunks(db, terms, limit=3) == found[:3]  # a smaller limit: the best of the same order


def test_the_shipped_order_is_bm25_with_ties_by_rowid_and_keeps_fts5s_own_ranking(vault_settings: WriteVault) -> None:
    # Identical bodies tie on bm25; a longer body ranks below the short ones for the same word.
    bodies = {f"notes/T{i:02}.md": "delta epsilon.\n" for i in range(1, 9)}
    bodies |= {"notes/Long.md": "delta " + " ".join(f"filler{i}" for i in range(40)) + ".\n"}
    settings = vault_settings(bodies)
    db = open_index(settings)
    sync(settings, db)
    terms = lexical_terms(db, "delta", 100)
    found = lexical_chunks(db, terms, limit=20)
    path_of = dict(db.execute("SELECT id, path FROM chunks").fetchall())
    assert path_of[found[-1]] == "notes/Long.md"  # bm25 still decides first
    assert found[:-1] == sorted(found[:-1])  # the tied ones by rowid, the same order every time
    fts5_own = [r[0] for r in db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'delta' ORDER BY rank")]
    assert set(fts5_own) == set(found) and fts5_own[-1] == found[-1]
