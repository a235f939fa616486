"""Language centres of a vector table: found from a sample, refreshed as the table grows.

A sample of the embedded passages is labelled by py3langid (a language-ID model that ships inside its
package); languages with enough of the sample get a centre (the mean of their vectors), one k-means step
over every vector of the table refines them, and each row then records its nearest centre and its sign
bits. A one-language vault ends with a single centre: the table's mean. No model call is involved: only
stored vectors are read, so refreshing costs a scan of the table.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np

from sentinel.index import language_id
from sentinel.index.migrations import transaction
from sentinel.search.vectors import Centres, restore, sign_bits

CENTRES_KEY = "vector_centres:{table}"
SAMPLE = 2000  # passages labelled by language ID per refresh
MIN_SHARE = 0.02  # a language needs this share of the sample (and MIN_COUNT passages) for its own centre
MIN_COUNT = 10
REFRESH_GROWTH = 4  # past SAMPLE vectors, refresh once a table holds this many times its centres' basis
SCAN = 20_000

TextsOf = Callable[[list[int]], dict[int, str]]


def load(db: sqlite3.Connection, table: str) -> tuple[Centres, int] | None:
    """The table's centres and the table size they were computed at, or None before the first vectors."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (CENTRES_KEY.format(table=table),)).fetchone()
    return parse(row[0]) if row else None


def parse(value: str) -> tuple[Centres, int]:
    """Centres and their table size from the record ``meta`` keeps them in."""
    data = json.loads(value)
    return Centres(np.asarray(data["vectors"], dtype=np.float32), tuple(data["languages"])), int(data["n"])


def _save(db: sqlite3.Connection, table: str, centres: Centres, n: int) -> None:
    value = json.dumps({"n": n, "languages": list(centres.languages), "vectors": centres.vectors.tolist()})
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (CENTRES_KEY.format(table=table), value),
    )


def from_sample(vectors: np.ndarray, texts: list[str]) -> Centres:
    """Centres of the languages that make up a sample of passages (texts and their unit vectors)."""
    identifier = language_id.every_language()
    labels = [identifier.classify(t)[0] for t in texts]
    counts = Counter(labels)
    floor = max(MIN_COUNT, int(MIN_SHARE * len(texts)))
    languages = sorted(lang for lang, n in counts.items() if n >= floor)
    if len(languages) < 2:
        return Centres(vectors.mean(axis=0, keepdims=True).astype(np.float32), ("*",))
    mask = np.array(labels)
    return Centres(
        np.stack([vectors[mask == lang].mean(axis=0) for lang in languages]).astype(np.float32), tuple(languages)
    )


def first_centres(
    db: sqlite3.Connection, table: str, vectors: np.ndarray, texts: list[str], seeds: Centres | None
) -> Centres:
    """Centres for a table's very first batch: the ``seeds`` when given (another table's languages), else
    those of the batch itself. ``refresh_if_grown`` refines them as the table grows."""
    centres = seeds if seeds is not None else from_sample(vectors, texts)
    _save(db, table, centres, len(vectors))
    return centres


def refresh_if_grown(
    db: sqlite3.Connection, table: str, texts_of: TextsOf, *, seeds: Centres | None = None, force: bool = False
) -> bool:
    """Recompute the table's centres and every row's centre and bits once it has grown enough: after any
    growth while it is small (a refresh then costs little), then at each ``REFRESH_GROWTH``-fold growth.

    The languages come from a language-ID sample of the table's own texts (``texts_of`` gives the embedded
    text of vector ids), or from ``seeds``: page summaries are too few in a small vault to tell languages
    apart, so they take the chunk table's languages and move each centre to the mean of their own vectors.
    ``force`` refreshes regardless of growth (the seeds changed). Returns whether a refresh ran.
    """
    current = load(db, table)
    count = int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    if current is None or not count or (count == current[1] and not force):
        return False
    if not force and current[1] >= SAMPLE and count < REFRESH_GROWTH * current[1]:
        return False  # a large table's centres hold until it has grown well past them
    dims = current[0].vectors.shape[1]
    centres = seeds if seeds is not None else _sampled(db, table, texts_of, count, dims)
    centres = _kmeans_step(db, table, centres, dims)
    with transaction(db):
        for ids_batch, vecs in _scan(db, table, dims):
            which = centres.nearest(vecs)
            bits = sign_bits(centres.centred(vecs, which))
            db.executemany(
                f"UPDATE {table} SET centre = ?, bits = ? WHERE id = ?",
                [(int(w), b.tobytes(), i) for w, b, i in zip(which, bits, ids_batch, strict=True)],
            )
        _save(db, table, centres, count)
        db.execute("UPDATE search_generation SET n = n + 1")  # every row's bits changed: views reload whole
    return True


def _sampled(db: sqlite3.Connection, table: str, texts_of: TextsOf, count: int, dims: int) -> Centres:
    """Centres of the languages found in a deterministic random sample of the table."""
    rng = np.random.default_rng(count)  # the same table size always draws the same sample
    ids = np.array([r[0] for r in db.execute(f"SELECT id FROM {table}")], dtype=np.int64)
    chosen = rng.choice(ids, size=min(SAMPLE, len(ids)), replace=False)
    texts = texts_of(sorted(int(i) for i in chosen))
    sample_ids = sorted(texts)
    return from_sample(_vectors_of(db, table, sample_ids, dims), [texts[i] for i in sample_ids])


def _kmeans_step(db: sqlite3.Connection, table: str, centres: Centres, dims: int) -> Centres:
    """Move each centre to the mean of the rows nearest to it (a centre nobody is near stays)."""
    sums = np.zeros_like(centres.vectors, dtype=np.float64)
    counts = np.zeros(len(centres.vectors))
    for _, vecs in _scan(db, table, dims):
        which = centres.nearest(vecs)
        np.add.at(sums, which, vecs)
        counts += np.bincount(which, minlength=len(counts))
    moved = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centres.vectors)
    return Centres(moved.astype(np.float32), centres.languages)


def _vectors_of(db: sqlite3.Connection, table: str, ids: list[int], dims: int) -> np.ndarray:
    rows: dict[int, tuple[bytes, float]] = {}
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        rows.update(
            (r[0], (r[1], r[2])) for r in db.execute(f"SELECT id, vec, scale FROM {table} WHERE id IN ({marks})", batch)
        )
    return restore([rows[i][0] for i in ids], [rows[i][1] for i in ids], dims)


def _scan(db: sqlite3.Connection, table: str, dims: int) -> Iterator[tuple[list[int], np.ndarray]]:
    last = 0
    while True:
        rows = db.execute(
            f"SELECT id, vec, scale FROM {table} WHERE id > ? ORDER BY id LIMIT ?", (last, SCAN)
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        yield [r[0] for r in rows], restore([r[1] for r in rows], [r[2] for r in rows], dims)


def words_language(text: str, languages: tuple[str, ...]) -> tuple[str, float]:
    """The language of ``text`` among ``languages`` by its words (py3langid), and how sure (0-1)."""
    known = tuple(sorted(lang for lang in languages if lang))
    if len(known) < 2 or not text.strip():
        return "", 0.0
    return _classified(text, known)


# A query's words are classified twice, by the lexical leg (``lexical.query_language``) and then by the meaning
# leg (``meaning._language_of``): the second finds the first's answer here (0.25-0.3 ms CPU a query at 10k
# synthetic pages; docs/retrieval.md, "Stop 55, h55e"). py3langid's answer depends on the text and languages only.
# A few entries: queries of several threads at once each find their own; not a cache of past queries.
@functools.lru_cache(maxsize=8)
def _classified(text: str, known: tuple[str, ...]) -> tuple[str, float]:
    try:
        label, probability = language_id.among(known).classify(text)
    except ValueError:  # a language the model does not know
        return "", 0.0
    return str(label), float(probability)
