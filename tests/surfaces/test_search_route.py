"""POST /v1/search over real HTTP: the three modes, paging, provenance, keys, and no score anywhere."""

from __future__ import annotations

import httpx

from sentinel.index.db import open_index
from sentinel.search.ladder import search
from tests.support.surfaces import QUOTED, SEEDLING, Served


def _search(served: Served, key: str | None = None, **body: object) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key or served.read_key}"}
    return httpx.post(f"{served.url}/v1/search", json=body, headers=headers, timeout=60)


def test_quick_finds_names_and_aliases(served: Served) -> None:
    exact = _search(served, query="Befehlspalette", mode="quick").json()
    assert exact["hits"][0]["path"] == "de/Erweiterungen/Befehlspalette.md"
    assert "exact" in exact["hits"][0]["labels"]
    alias = _search(served, query="plugins/paleta", mode="quick").json()  # an alias of the Spanish page
    assert [h["path"] for h in alias["hits"]] == ["es/Complementos/Paleta de comandos.md"]
    assert _search(served, query="  ", mode="quick").status_code == 400


def test_facet_alone_lists_and_with_words_ranks(served: Served) -> None:
    listed = _search(served, query="permalink:plugins/command-palette", mode="facet").json()
    assert {h["path"].split("/")[0] for h in listed["hits"]} == {"en", "de", "es", "tr"}
    assert [h["path"] for h in listed["hits"]] == sorted(h["path"] for h in listed["hits"])
    seedling = _search(served, query="status:seedling", mode="facet").json()["hits"]
    assert [(h["path"], h["labels"]) for h in seedling] == [(SEEDLING, ["seedling", "excerpt"])]
    unknown = _search(served, query="colour:blue", mode="facet")
    assert unknown.status_code == 400 and "no facet this vault knows" in unknown.json()["detail"]


def test_semantic_is_the_ladder_with_paging_and_no_score(served: Served) -> None:
    first = _search(served, query="run a command from the keyboard", mode="semantic").json()
    db = open_index(served.settings)
    ladder = search(db, served.settings, None, "run a command from the keyboard")  # wording only: no embedder
    db.close()
    assert len(first["hits"]) == 10 and first["next_cursor"] == 10  # a screen's worth, not the tools' five
    assert not any(key in hit for hit in first["hits"] for key in ("score", "legs", "similarity"))
    assert set(first["hits"][0]) >= {"path", "title", "text", "labels", "trail", "heading", "name"}
    assert ladder.hits  # the ladder answers the same query (the route adds nothing to its ranking)
    second = _search(served, query="run a command from the keyboard", mode="semantic", cursor=10).json()
    assert second["cursor"] == 10 and not {h["path"] for h in first["hits"]} & {h["path"] for h in second["hits"]}
    body = _search(served, query="run a command from the keyboard", mode="semantic", rung="body").json()
    assert body["hits"][0]["rung"] == "body" and body["hits"][0]["trail"]


def test_concept_hit_carries_provenance(served: Served) -> None:
    hits = _search(served, query="Command palette plugin", mode="quick").json()["hits"]
    concept = next(h for h in hits if h["path"] == served.concept)
    assert concept["provenance"]["sources"] == ["en/Plugins/Command palette.md"]
    assert concept["provenance"]["quotes"][0]["sentence"] == QUOTED
    assert concept["provenance"]["trace"] == "intact"
    assert all("provenance" not in h for h in hits if h["path"] != served.concept)


def test_keys(served: Served) -> None:
    assert httpx.post(f"{served.url}/v1/search", json={"query": "x"}).status_code == 401
    assert httpx.get(f"{served.url}/v1/search/access").status_code == 401
    ok = httpx.get(f"{served.url}/v1/search/access", headers={"Authorization": f"Bearer {served.read_key}"})
    assert ok.json() == {"scope": "read"}
    page = httpx.get(f"{served.url}/", follow_redirects=True)
    assert page.status_code == 200 and 'id="q"' in page.text
    assert httpx.get(f"{served.url}/search/static/modes.js").status_code == 200


def test_bad_input_is_a_400_naming_the_fix(served: Served) -> None:
    surrogate = httpx.post(
        f"{served.url}/v1/search",
        content=b'{"query": "palette \\ud800", "mode": "quick"}',  # JSON may escape what UTF-8 cannot carry
        headers={"Authorization": f"Bearer {served.read_key}", "Content-Type": "application/json"},
    )
    assert surrogate.status_code == 400 and "lone surrogate" in surrogate.json()["detail"]
    assert _search(served, query="x", mode="fuzzy").status_code == 422
    assert _search(served, query="x", mode="quick", cursor=-1).status_code == 422


def test_a_person_reads_whole_summaries_and_passages_without_markup(served: Served) -> None:
    """The tools' line stops at ten words (their token budget); the page shows the summary whole, and a passage
    as the text Obsidian shows (no **, no ![[icon.svg#icon]])."""
    hits = _search(served, query="Command palette", mode="quick").json()["hits"]
    english = next(h for h in hits if h["path"] == "en/Plugins/Command palette.md")
    db = open_index(served.settings)
    tool_line = search(db, served.settings, None, "Command palette").hits[0].text
    db.close()
    assert tool_line.endswith("…") and not english["text"].endswith("…") and len(english["text"].split()) > 10
    body = _search(served, query="run a command from the keyboard", mode="semantic", rung="body").json()["hits"]
    passages = " ".join(h["text"] for h in body)
    assert passages and not any(mark in passages for mark in ("**", "![[", "](", "%%", "[!warning]"))


def test_opensearch_and_favicon(served: Served) -> None:
    description = httpx.get(f"{served.url}/search/opensearch.xml")
    assert description.headers["content-type"].startswith("application/opensearchdescription+xml")
    assert f'template="{served.url}/search?q={{searchTerms}}"' in description.text
    icon = httpx.get(f"{served.url}/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    page = httpx.get(f"{served.url}/search").text
    assert 'rel="search"' in page and "/search/opensearch.xml" in page
