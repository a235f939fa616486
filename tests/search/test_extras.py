"""Retrieval extras: PageRank for relationship questions, facets, quality boundaries."""

from __future__ import annotations

import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.queries import unresolved
from sentinel.index.sync import sync
from sentinel.search import SearchInputError, embed_pending, search
from sentinel.search.graph import is_relationship_query, personalized_pagerank
from sentinel.search.results import GRAPH, LEG_GRAPH, LOW_CONFIDENCE, SEEDLING
from tests.support.vault import WriteVault

# The ledger database is described in one page; the services that depend on it say so only in their
# frontmatter or through a link, and their text shares no words or meaning with the question.
GRAPH_VAULT = {
    "notes/Ledger database.md": "# Ledger database\n\nThe ledger database stores every posted transaction.",
    "notes/Invoice worker.md": "---\ndepends_on: ['[[Ledger database]]']\n---\n# Invoice worker\n\n"
    "Renders PDF invoices each night and mails them to customers.",
    "notes/Audit exporter.md": "# Audit exporter\n\nShips quarterly files to the auditors. Reads [[Ledger database]].",
    "notes/Database backups.md": "# Database backups\n\nDatabase backups run hourly; a database restore takes minutes.",
    "notes/Database indexes.md": "# Database indexes\n\nA database index speeds up database lookups.",
    "notes/Garden.md": "# Garden\n\nTomatoes need water every morning.",
    **{
        f"notes/Database {topic}.md": f"# Database {topic}\n\nThe database {topic} keep the database healthy."
        for topic in ("migrations", "sharding", "vacuuming", "replicas", "snapshots")
    },
    "notes/Service catalogue.md": "# Service catalogue\n\nLists which services depend on which database.",
    "notes/Dependency graph.md": "# Dependency graph\n\nShows what depends on what across all systems.",
    "notes/General ledger.md": "# General ledger\n\nThe general ledger is the accounting book of record.",
}


def _paths(found) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.path for h in found.hits]


@pytest.mark.parametrize(
    ("query", "shaped"),
    [
        ("what depends on the ledger database", True),
        ("how is sync related to publish", True),
        ("Welche Dienste hängen von der Datenbank ab?", True),
        ("¿Qué relación hay entre Sync y Publish?", True),
        ("Veritabanına bağlı servisler hangileri?", True),
        ("Wie hängt Sync mit Publish zusammen?", True),
        ("Notlar arasındaki ilişki", True),
        ("what links to the ledger", True),
        ("catalyst license price", False),
        ("how do I embed a pdf", False),
        # ordinary wording that the first rule walked the graph for
        ("what payment options can I use to pay", False),
        ("pause the sync because of a conflict", False),
        ("make a note that shows up when I hover over a link without opening it", False),
        ("switch between light and dark mode", False),
        ("Zwischen zwei Tabs wechseln", False),
        ("¿Es peligroso usar enlaces entre bóvedas?", False),
        ("Sembolik bağlantılar kasada sorun çıkarır mı?", False),
    ],
)
def test_relationship_shaped_queries_are_recognised(query: str, shaped: bool) -> None:
    assert is_relationship_query(query) is shaped


def test_pagerank_prefers_pages_near_the_seeds() -> None:
    edges = [("A", "B"), ("B", "C"), ("C", "D"), ("X", "Y")]
    order = personalized_pagerank(["A"], edges)
    assert set(order) == {"A", "B", "C", "D"}  # X and Y are unreachable from the seed: no mass
    assert order.index("B") < order.index("C") < order.index("D")


def test_pagerank_brings_up_dependants_that_wording_misses(vault_settings: WriteVault) -> None:
    settings = vault_settings(GRAPH_VAULT)
    db = open_index(settings)
    sync(settings, db)
    query = "what depends on the ledger database"
    plain = search(db, settings, None, query, limit=10, pagerank=False)
    assert "notes/Invoice worker.md" not in _paths(plain)  # no shared word: the lexical leg cannot see it
    walked = search(db, settings, None, query, limit=10)  # relationship-shaped: the walk runs by itself
    assert LEG_GRAPH in walked.legs_used
    found = {h.path: h for h in walked.hits}
    assert {"notes/Invoice worker.md", "notes/Audit exporter.md"} <= set(found)
    invoice = found["notes/Invoice worker.md"]
    assert GRAPH in invoice.labels and invoice.legs == (LEG_GRAPH,)
    assert "notes/Garden.md" not in found  # not connected: the walk adds nothing unrelated


@pytest.mark.slow
def test_pagerank_lifts_a_linked_page_that_fusion_ranks_low(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(GRAPH_VAULT)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    query = "what depends on the ledger database"
    plain = _paths(search(db, settings, e5, query, limit=10, pagerank=False))
    walked = _paths(search(db, settings, e5, query, limit=10, pagerank=True))
    assert walked.index("notes/Invoice worker.md") < plain.index("notes/Invoice worker.md")
    assert walked.index("notes/Invoice worker.md") < 5 <= plain.index("notes/Invoice worker.md")


def test_ordinary_queries_do_not_walk_the_graph(vault_settings: WriteVault) -> None:
    settings = vault_settings(GRAPH_VAULT)
    db = open_index(settings)
    sync(settings, db)
    assert LEG_GRAPH not in search(db, settings, None, "ledger database").legs_used


KETTLES = {
    "notes/Kettle A.md": "---\ntype: appliance\n---\n# Kettle A\n\nThe kettle boils water quickly in the morning.",
    "notes/Kettle B.md": "---\ntype: appliance\nstatus: seedling\n---\n# Kettle B\n\nKettle boils. Kettle boils.",
    "notes/Kettle C.md": "---\ntype: appliance\nstatus: [seedling]\nconfidence: low\n---\n# Kettle C\n\n"
    "Kettle boils. Kettle boils. Kettle boils.",
    "wiki/Kettle.md": "---\ntype: concept\ntags: [kitchen]\n---\n# Kettle\n\nA kettle heats water.",
    "notes/Meeting 10.md": "# Meeting\n\nAt 10:30 we discussed the kettle.",
}


def test_quality_flags_rank_down_compounding_and_label(vault_settings: WriteVault) -> None:
    settings = vault_settings(KETTLES)
    db = open_index(settings)
    sync(settings, db)
    found = search(db, settings, None, "kettle boils type:appliance", limit=10)
    assert _paths(found) == ["notes/Kettle A.md", "notes/Kettle B.md", "notes/Kettle C.md"]
    labels = {h.path: tuple(x for x in h.labels if x in (SEEDLING, LOW_CONFIDENCE)) for h in found.hits}
    assert labels["notes/Kettle B.md"] == (SEEDLING,)
    assert labels["notes/Kettle C.md"] == (SEEDLING, LOW_CONFIDENCE)
    # Without the penalty the flagged pages, which repeat the words, would come first.
    free = settings.model_copy(update={"search": settings.search.model_copy(update={"quality_penalty": 1.0})})
    assert _paths(search(db, free, None, "kettle boils type:appliance", limit=10))[0] == "notes/Kettle C.md"


def test_facets_filter_search(vault_settings: WriteVault) -> None:
    settings = vault_settings(KETTLES)
    db = open_index(settings)
    sync(settings, db)
    assert _paths(search(db, settings, None, "kettle type:concept", limit=10)) == ["wiki/Kettle.md"]
    assert _paths(search(db, settings, None, "kettle tag:kitchen", limit=10)) == ["wiki/Kettle.md"]
    assert set(_paths(search(db, settings, None, "kettle status:seedling", limit=10))) == {
        "notes/Kettle B.md",
        "notes/Kettle C.md",
    }
    assert _paths(search(db, settings, None, "kettle role:wiki", limit=10)) == ["wiki/Kettle.md"]


def test_text_that_only_looks_like_a_facet_is_searched_for(vault_settings: WriteVault) -> None:
    settings = vault_settings(KETTLES)
    db = open_index(settings)
    sync(settings, db)
    assert _paths(search(db, settings, None, "10:30 meeting", limit=1)) == ["notes/Meeting 10.md"]


@pytest.mark.parametrize(("query", "says"), [("role:kitchen kettle", "not a role"), ("type:concept", "listing")])
def test_bad_or_bare_facets_say_what_to_do(vault_settings: WriteVault, query: str, says: str) -> None:
    settings = vault_settings(KETTLES)
    db = open_index(settings)
    sync(settings, db)
    with pytest.raises(SearchInputError, match=says):
        search(db, settings, None, query)


@pytest.mark.slow
def test_faceted_semantic_search_ranks_only_allowed_pages(vault_settings: WriteVault, e5: OnnxEmbedder) -> None:
    settings = vault_settings(KETTLES)
    db = open_index(settings)
    sync(settings, db)
    embed_pending(db, e5)
    found = search(db, settings, e5, "boiling water type:concept", limit=10)
    assert _paths(found) == ["wiki/Kettle.md"] and not found.notes


def test_facet_keys_match_whatever_their_case(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "notes/Kettle A.md": "---\nType: Appliance\n---\n# Kettle A\n\nThe kettle boils.",
            "notes/Kettle B.md": "---\nTYPE: [tool, appliance]\n---\n# Kettle B\n\nThe kettle boils.",
            "notes/Kettle C.md": "---\ntype: concept\n---\n# Kettle C\n\nThe kettle boils.",
        }
    )
    db = open_index(settings)
    sync(settings, db)
    for query in ("kettle type:appliance", "kettle Type:APPLIANCE"):
        assert sorted(_paths(search(db, settings, None, query, limit=10))) == [
            "notes/Kettle A.md",
            "notes/Kettle B.md",
        ], query


def test_boolean_facets_match_the_words_true_and_false(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "notes/Kettle A.md": "---\nmobile: false\n---\n# Kettle A\n\nThe kettle boils.",
            "notes/Kettle B.md": "---\nmobile: true\nflags: [true, x]\n---\n# Kettle B\n\nThe kettle boils.",
            "notes/Kettle C.md": "---\nmobile: 0\n---\n# Kettle C\n\nThe kettle boils.",
        }
    )
    db = open_index(settings)
    sync(settings, db)
    assert _paths(search(db, settings, None, "kettle mobile:false", limit=10)) == ["notes/Kettle A.md"]
    assert _paths(search(db, settings, None, "kettle mobile:TRUE", limit=10)) == ["notes/Kettle B.md"]
    assert _paths(search(db, settings, None, "kettle flags:true", limit=10)) == ["notes/Kettle B.md"]
    # A number stays a number: 0 is not false, and false is not 0.
    assert _paths(search(db, settings, None, "kettle mobile:0", limit=10)) == ["notes/Kettle C.md"]


def test_links_reach_pages_as_obsidian_resolves_them(vault_settings: WriteVault) -> None:
    settings = vault_settings(
        {
            "notes/sub/A.md": "See [c](../Target%20C.md) and [d](<../Target D.md>).\n%% [[Ghost]] %%",
            "notes/Target C.md": "# C",
            "notes/Target D.md": "# D",
            "notes/B.md": '---\nrelated: "[[Target C]]"\n---\n# B',
        }
    )
    db = open_index(settings)
    sync(settings, db)
    links = db.execute("SELECT source, target, resolved FROM links ORDER BY source, target").fetchall()
    assert [tuple(row) for row in links] == [
        ("notes/B.md", "Target C", "notes/Target C.md"),  # a property link is a link
        ("notes/sub/A.md", "notes/Target C", "notes/Target C.md"),  # relative links resolve from their folder
        ("notes/sub/A.md", "notes/Target D", "notes/Target D.md"),
    ]  # the commented-out [[Ghost]] is no link, so it is not in the growth queue
    assert unresolved(db) == []
