"""One hit per translation family: a page and its translations are shown once, in the query's language.

A vault that keeps a page in several languages (the eval vault: en/, tr/, es/, de/) otherwise fills the
results with copies of one answer, and e5 may rank a foreign copy above the one the reader can read. Two
pages are one family when they sit at the same path under two language folders (``en/a.md``, ``de/a.md``),
when one links the other from its ``translations``/``translation_of`` property, when both publish at one
``permalink`` (Obsidian Publish's way of keeping one page in several languages), or when their page vectors
(the mean of their units' e5 vectors, each compared from its own language's centre) are near-identical across
two languages and each is the other's nearest in that language. The family is shown by its member in the query's
language (else by its best-ranked member) at the rank of its best-ranked member, with the other languages as
``also_in`` and their paths as ``copies``: the copies stay reachable (``read`` takes a path, and a search with
``all_languages`` shows every copy as its own hit).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

import numpy as np

from sentinel.paths import folder_language
from sentinel.search.rerank import page_units
from sentinel.search.view import current_view
from sentinel.search.view_columns import ids_like
from sentinel.vault.links import wikilinks_in

TRANSLATION_KEYS = ("translations", "translation_of", "translation")
KEYS_SHARE = "translation"  # a word every one of TRANSLATION_KEYS holds (``_linked_pairs`` reads only such pages)
# Centred cosine of two page vectors from which two pages in different languages are the same page. Chosen on
# the public set (de+tr part; bench/retrieval.py --families): no pair at or above .85 is joined, at .80 one pair
# no query labels; labelled translations sit at .50-.75, too close to other pages' to be told apart. So vectors
# join only what is near-identical and the explicit signals above carry the families; docs/retrieval.md.
NEAR_IDENTICAL = 0.85
DEPTH = 30  # ranked pages grouped into families (the rest are shown as they come): bounds the cost per query


@dataclass
class Family:
    """Pages that are one page in several languages, best-ranked first."""

    members: list[str]
    languages: dict[str, str] = field(default_factory=dict)  # path -> language


def _parallel_key(path: str) -> str:
    return path.partition("/")[2] if folder_language(path) else ""


class _Union:
    def __init__(self, items: list[str], language: dict[str, str]) -> None:
        self.parent = {i: i for i in items}
        self.languages = {i: {language[i]} if language.get(i) else set() for i in items}

    def find(self, item: str) -> str:
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def join(self, a: str, b: str) -> None:
        """Join two groups unless that would put two pages of one language in a family."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb or self.languages[ra] & self.languages[rb]:
            return
        self.parent[rb] = ra
        self.languages[ra] |= self.languages[rb]


def _same_permalink(db: sqlite3.Connection, paths: list[str]) -> list[tuple[str, str]]:
    """Pairs of ``paths`` that publish at one address (``permalink``: Obsidian Publish's one page in many
    languages, as in the eval vault)."""
    marks = ",".join("?" * len(paths))
    first: dict[str, str] = {}
    pairs = []
    for path, link in db.execute(
        f"SELECT path, json_extract(frontmatter, '$.permalink') FROM pages WHERE path IN ({marks})", paths
    ):
        if isinstance(link, str) and link.strip():
            key = link.strip().strip("/").casefold()
            if key in first:
                pairs.append((first[key], str(path)))
            else:
                first[key] = str(path)
    return pairs


def _linked_pairs(db: sqlite3.Connection, paths: list[str]) -> list[tuple[str, str]]:
    """(page, translation) pairs among ``paths`` named in a page's translation property."""
    marks = ",".join("?" * len(paths))
    named: dict[str, set[str]] = {}
    # only frontmatter whose text holds ``KEYS_SHARE`` can hold one of the keys (it is stored as JSON, keys
    # verbatim): the rest is not parsed (0.3 ms CPU a query at 10k synthetic pages; docs/retrieval.md, "Stop 55, h55e")
    for path, raw in db.execute(
        f"SELECT path, frontmatter FROM pages WHERE path IN ({marks}) AND instr(frontmatter, ?) > 0",
        [*paths, KEYS_SHARE],
    ):
        meta = json.loads(raw or "{}")
        values = [meta.get(k) for k in TRANSLATION_KEYS if meta.get(k)]
        texts = [v for value in values for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
        if texts:
            named[str(path)] = {link.target for text in texts for link in wikilinks_in(text, 1)}
    if not named:
        return []
    wanted = set(paths)
    sources = list(named)
    marks = ",".join("?" * len(sources))
    rows = db.execute(
        f"SELECT source, target, resolved FROM links WHERE source IN ({marks}) AND resolved IS NOT NULL", sources
    ).fetchall()
    return [(str(s), str(r)) for s, t, r in rows if t in named[str(s)] and r in wanted]


def page_vectors(db: sqlite3.Connection, paths: list[str]) -> dict[str, np.ndarray]:
    """Each page's vector: the mean of its units' centred vectors, at unit length (a translation has the same
    units in another language, so the means nearly coincide; summaries are not used: a small vault has no
    summary centres)."""
    owners, centred = page_units(db, current_view(db), paths)
    sums: dict[str, np.ndarray] = {}
    for path, row in zip(owners, centred, strict=True):
        sums[path] = sums[path] + row if path in sums else row.copy()
    return {p: v / max(float(np.linalg.norm(v)), 1e-12) for p, v in sums.items()}


def page_languages(db: sqlite3.Connection, paths: list[str]) -> dict[str, str]:
    """Each page's language: its language folder, else the language of its summary vector's centre."""
    out = {p: folder_language(p) for p in paths}
    view = current_view(db)
    summaries = view.summaries
    rest = [p for p in paths if not out[p]]
    if summaries is None or not rest or not len(summaries):
        return out
    wanted = view.rows.pages.rowids_of(rest)
    at = np.minimum(np.searchsorted(summaries.items, ids_like(summaries.items, wanted)), len(summaries) - 1)
    for path, row, rowid in zip(rest, at.tolist(), wanted.tolist(), strict=True):
        if int(summaries.items[row]) == rowid:
            out[path] = summaries.centres.languages[int(summaries.centre_of[row])]
    return out


def families(db: sqlite3.Connection, ranked: list[str]) -> list[Family]:
    """The first ``DEPTH`` ranked pages grouped into translation families, in rank order of their best member."""
    top = ranked[:DEPTH]
    if len(top) < 2:
        return [Family([p]) for p in top]
    language = page_languages(db, top)
    union = _Union(top, language)
    by_key: dict[str, str] = {}
    for path in top:
        key = _parallel_key(path)
        if key and key in by_key:
            union.join(by_key[key], path)
        elif key:
            by_key[key] = path
    for a, b in _linked_pairs(db, top) + _same_permalink(db, top):
        union.join(a, b)
    _join_near_identical(db, top, language, union)
    groups: dict[str, Family] = {}
    for path in top:
        family = groups.setdefault(union.find(path), Family([]))
        family.members.append(path)
        family.languages[path] = language.get(path, "")
    return list(groups.values())


def _join_near_identical(db: sqlite3.Connection, top: list[str], language: dict[str, str], union: _Union) -> None:
    if len({language[p] for p in top if language.get(p)}) < 2:
        return  # one language among them: no translations to find
    vectors = page_vectors(db, top)
    paths = [p for p in top if p in vectors and language.get(p)]
    if len(paths) < 2:
        return
    matrix = np.stack([vectors[p] for p in paths])
    cosine = matrix @ matrix.T
    langs = [language[p] for p in paths]
    codes = np.array(langs)
    best: dict[tuple[int, str], int] = {}  # (page, other language) -> its nearest page in that language
    for other in sorted(set(langs)):
        columns = np.flatnonzero(codes == other)
        nearest = columns[np.argmax(cosine[:, columns], axis=1)]
        best.update(((i, other), int(nearest[i])) for i in np.flatnonzero(codes != other).tolist())
    mutual = [(i, j) for (i, _), j in best.items() if i < j and best.get((j, langs[i])) == i]
    # a join can refuse a later one (two pages of one language), so the order decides families: the closest
    # pairs first, then by rank, never by the hash order of a set (which changes from one process to the next)
    for i, j in sorted(mutual, key=lambda pair: (-float(cosine[pair]), pair)):
        if cosine[i, j] >= NEAR_IDENTICAL:
            union.join(paths[i], paths[j])


@dataclass(frozen=True)
class Collapsed:
    ranked: list[str]  # one page per family, in the query's language where the family has it
    also_in: dict[str, tuple[str, ...]]  # shown page -> the other languages of its family
    copies: dict[str, tuple[str, ...]]  # shown page -> the other members' paths


def collapse(db: sqlite3.Connection, ranked: list[str], query_language: str) -> Collapsed:
    """``ranked`` with each translation family shown once (see the module docstring)."""
    grouped = families(db, ranked)
    shown: list[str] = []
    also_in: dict[str, tuple[str, ...]] = {}
    copies: dict[str, tuple[str, ...]] = {}
    for family in grouped:
        preferred = [p for p in family.members if family.languages.get(p) == query_language]
        head = preferred[0] if preferred else family.members[0]
        shown.append(head)
        others = [p for p in family.members if p != head]
        if others:
            also_in[head] = tuple(sorted({family.languages[p] for p in others if family.languages.get(p)}))
            copies[head] = tuple(others)
    return Collapsed(shown + ranked[DEPTH:], also_in, copies)
