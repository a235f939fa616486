"""Personalized PageRank over the link graph, for relationship-shaped queries.

The graph: resolved wikilinks, embeds and markdown links between pages (from the roles that place links),
plus typed frontmatter edges (``related:``, ``parent:``, ``depends_on:``, ...) resolved the way Obsidian
resolves a link. Edges are walked both ways: "what depends on X" needs the pages that point at X.
The walk starts from the fused hits (weighted by rank, never by score), runs on the seeds' two-hop
neighbourhood (where nearly all of the mass stays) with numpy, and its ranking is fused with the original
one (``fusion.with_walk``), so connected pages that similarity alone ranks low come up. It runs when the
query is shaped like a question about relationships (``RELATIONSHIP``, several languages), or when asked.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable

import numpy as np

from sentinel.index.fold import fold
from sentinel.index.resolve import resolve_keys
from sentinel.search.view import per_generation
from sentinel.settings import Settings
from sentinel.vault.links import WIKILINK, link_key, split_wikilink

TYPED_EDGES = ("related", "parent", "parents", "depends_on", "dependencies", "up", "children", "part_of")
# Phrases that ask how pages connect, matched whole-word on the folded query (case and accents do not
# matter, ı is i). Each is a relation word or a verb with the preposition that makes it one: "use",
# "between", "entre", "zwischen", "arasında" and "bağlantı" (a symlink in Turkish help) also fill ordinary
# questions ("switch between tabs", "can I use"), so alone they are not enough.
RELATIONSHIP = re.compile(
    r"\b(?:"
    r"depend\w*|relat(?:ed|es|ion|ions|ionships?)|connected\s+(?:to|with)|connections?\s+between"
    r"|linked\s+(?:to|from|with)|what\s+links\s+to|used\s+by|part\s+of|(?:parents?|child|children)\s+of"
    r"|affect(?:s|ed|ing)?|impacts?\s+(?:on|of)"
    r"|abhangig\w*|hang(?:t|en)\b.*\b(?:ab|zusammen)|beziehung\w*|zusammenh(?:ang|angt|angen)\w*"
    r"|(?:verbunden|verknupft|verlinkt)\s+mit"
    r"|depende[ns]?\s+de|dependencias?|relacion\w*|conectad[oa]s?\s+(?:a|con)|vinculad[oa]s?"
    r"|bagli\w*|bagimli\w*|iliski\w*|etkile\w*"
    r")\b"
)
SEEDS = 5  # top fused pages the walk starts from
DAMPING = 0.85
ITERATIONS = 40
MAX_NEIGHBOURS = 200  # per page and hop: a hub must not pull the whole vault into one walk


def is_relationship_query(query: str) -> bool:
    """Whether a query asks how things connect (so the graph walk is worth its cost)."""
    return bool(RELATIONSHIP.search(fold(query)))


def _typed_targets(frontmatter: str) -> list[str]:
    try:
        meta = json.loads(frontmatter)
    except ValueError:
        return []
    targets: list[str] = []
    for key in TYPED_EDGES:
        value = meta.get(key) if isinstance(meta, dict) else None
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str) or not item.strip():
                continue
            inner = WIKILINK.findall(item)
            targets += [split_wikilink(i)[0] for _, i in inner] if inner else [item.strip()]
    return [t for t in targets if t]


def typed_edges(db: sqlite3.Connection) -> dict[str, list[tuple[str, str]]]:
    """Typed frontmatter edges of the whole vault, by each endpoint (read once per change of the index)."""
    return per_generation(db, "typed_edges", lambda: _read_typed_edges(db))


def _read_typed_edges(db: sqlite3.Connection) -> dict[str, list[tuple[str, str]]]:
    spelled = " OR ".join(f"frontmatter LIKE '%\"{name}\"%'" for name in TYPED_EDGES)
    found = [
        (path, [link_key(t) for t in _typed_targets(fm)])
        for path, fm in db.execute(f"SELECT path, frontmatter FROM pages WHERE {spelled}")
    ]
    resolved = resolve_keys(db, {k for _, keys in found for k in keys})
    by_page: dict[str, list[tuple[str, str]]] = {}
    for path, keys in found:
        for target in sorted({t for k in keys if (t := resolved.get(k)) and t != path}):  # not a set's hash order
            by_page.setdefault(path, []).append((path, target))
            by_page.setdefault(target, []).append((path, target))
    return by_page


def _neighbours(db: sqlite3.Connection, pages: Iterable[str]) -> list[tuple[str, str]]:
    """Edges touching ``pages``: links out of and into them, and typed frontmatter edges either way."""
    batch = sorted(set(pages))
    if not batch:
        return []
    marks = ",".join("?" * len(batch))
    edges: list[tuple[str, str]] = []
    for column, other in (("source", "resolved"), ("resolved", "source")):
        rows = db.execute(
            f"""SELECT {column}, {other} FROM links
                WHERE {column} IN ({marks}) AND resolved IS NOT NULL AND places = 1 AND kind != 'attachment'""",
            batch,
        ).fetchall()
        per_page: dict[str, int] = {}
        for a, b in rows:
            if a != b and per_page.get(a, 0) < MAX_NEIGHBOURS:
                per_page[a] = per_page.get(a, 0) + 1
                edges.append((a, b) if column == "source" else (b, a))
    typed = typed_edges(db)
    for page in batch:
        edges += typed.get(page, [])[:MAX_NEIGHBOURS]
    return edges


def personalized_pagerank(seeds: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """Pages ordered by Personalized PageRank from ``seeds`` (earlier seeds weigh more) over undirected edges."""
    nodes = list(dict.fromkeys([*seeds, *(n for edge in edges for n in edge)]))
    index = {n: i for i, n in enumerate(nodes)}
    src = np.array([index[a] for a, b in edges] + [index[b] for a, b in edges], dtype=np.int64)
    dst = np.array([index[b] for a, b in edges] + [index[a] for a, b in edges], dtype=np.int64)
    degree = np.bincount(src, minlength=len(nodes)).astype(np.float64)
    restart = np.zeros(len(nodes))
    restart[: len(seeds)] = 1.0 / (np.arange(len(seeds)) + 2.0)
    restart /= restart.sum()
    rank = restart.copy()
    for _ in range(ITERATIONS):
        spread = np.bincount(dst, weights=rank[src] / degree[src], minlength=len(nodes)) if len(src) else 0.0
        dangling = rank[degree == 0].sum()
        new = (1 - DAMPING) * restart + DAMPING * (spread + dangling * restart)
        if np.abs(new - rank).sum() < 1e-9:
            rank = new
            break
        rank = new
    order = np.argsort(-rank, kind="stable")
    return [nodes[i] for i in order if rank[i] > 0]


def should_run(settings: Settings, query: str, explicit: bool | None) -> bool:
    """Deterministic: an explicit request wins, else the setting (auto: relationship-shaped queries only)."""
    if explicit is not None:
        return explicit
    mode = settings.search.pagerank
    return mode == "always" or (mode == "auto" and is_relationship_query(query))


def walk(db: sqlite3.Connection, ranked: list[str], roles: frozenset[str] | None = None) -> list[str]:
    """Pages by Personalized PageRank seeded by the top of ``ranked`` (fused pages, best first), over their
    two-hop neighbourhood. ``roles`` limits the pages the walk may bring (the summary rung shows only some)."""
    seeds = ranked[:SEEDS]
    if not seeds:
        return []
    first = _neighbours(db, seeds)
    hop = {b for _, b in first} | {a for a, _ in first}
    edges = first + _neighbours(db, hop - set(seeds))
    order = personalized_pagerank(seeds, list(dict.fromkeys(edges)))
    return _with_roles(db, order, roles) if roles is not None else order


def _with_roles(db: sqlite3.Connection, paths: list[str], roles: frozenset[str]) -> list[str]:
    allowed: set[str] = set()
    for start in range(0, len(paths), 500):
        batch = paths[start : start + 500]
        marks = ",".join("?" * len(batch))
        allowed.update(
            r[0] for r in db.execute(f"SELECT path, role FROM pages WHERE path IN ({marks})", batch) if r[1] in roles
        )
    return [p for p in paths if p in allowed]
