"""The lexical leg over a real index: a query of common words only (real SQLite FTS5, no model)."""

from __future__ import annotations

from sentinel.index.db import open_index
from sentinel.index.facets import Facets
from sentinel.index.sync import sync
from sentinel.search.lexical import lexical_chunks, lexical_terms, ranked_query
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


def _tagged_vault(vault_settings: WriteVault) -> WriteVault:
    # Forty one-chunk pages, every other one tagged "keep"; "alpha" and "beta" are in most of them (common).
    pages = {}
    for i in range(40):
        tags = "---\ntags: [keep]\n---\n" if i % 2 else ""
        words = " ".join(["alpha"] * (1 + i % 3) + ["beta"] * (1 + i % 4) + [f"filler{j}" for j in range(i % 5)])
        pages[f"notes/F{i:02}.md"] = f"{tags}{words}.\n"
    return vault_settings(pages)


def test_a_facet_keeps_the_unfiltered_ranking_of_the_pages_it_allows(vault_settings: WriteVault) -> None:
    settings = _tagged_vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    path_of = dict(db.execute("SELECT id, path FROM chunks").fetchall())
    kept = {str(r[0]) for r in db.execute("SELECT path FROM tags WHERE tag = 'keep'")}
    assert len(kept) == 20
    for query in ("alpha beta", "beta"):
        terms = lexical_terms(db, query, len(path_of))
        everything = lexical_chunks(db, terms, limit=100)
        filtered = lexical_chunks(db, terms, limit=5, facets=Facets(tags=["keep"]))
        assert filtered == [c for c in everything if path_of[c] in kept][:5]


def test_a_facet_filters_one_pass_over_the_matches_not_one_fts5_query_per_chunk(vault_settings: WriteVault) -> None:
    # A bare ``rowid IN (...)`` gives FTS5 a ``rowid = ?`` constraint (its index string holds "="): one query of
    # every term per chunk the facet allows, seconds a query on a big vault. The plan must not ask that.
    settings = _tagged_vault(vault_settings)
    db = open_index(settings)
    sync(settings, db)
    sql, params = ranked_query(Facets(tags=["keep"]))
    plan = [str(r[3]) for r in db.execute(f"EXPLAIN QUERY PLAN {sql}", ['"alpha"', *params, 10])]
    fts = [line for line in plan if line.startswith("SCAN chunks_fts VIRTUAL TABLE INDEX")]
    assert len(fts) == 1, plan
    assert "M" in fts[0].split("INDEX", 1)[1] and "=" not in fts[0].split("INDEX", 1)[1], fts[0]
