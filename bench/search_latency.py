"""Search latency per rung on synthetic vaults (10k and 100k pages), query embedding included.

    python bench/search_latency.py --pages 10000 [--pages 100000] [--queries 60] [--lexical held|fts5]
    python bench/search_latency.py --vault V --index V.db [--queries 40]   # an index made elsewhere (clone_vault)

For each size: writes the vault with bench/synth_vault.py and indexes it with the real sync (both cached
under .cache/bench/), fills the vector tables, then times warm ``search()`` calls per rung (p50/p95), and
the pieces: query embedding, lexical leg, semantic legs, cold view load. Prints a table. With ``--vault`` and
``--index`` (bench/clone_vault.py's 1M clone) nothing is written or rebuilt: a sync (it must find nothing to do)
and the vectors of chunks and summaries that have none. ``--lexical held``
(the default) first runs the leg over every query and waits for the postings reader, so the common words are
held as in a search process that has seen them; ``fts5`` times the leg as it was before held postings.
``--rss-timeline FILE`` samples the process's RSS every 50 ms into FILE (TSV) marked by phase (model load, sync,
view load and its parts, postings reads, queries) and prints where the peak was made (bench/rss_timeline.py).

Vectors: embedding ~1M chunks with e5 on two CPU cores would take hours, so chunk and summary vectors are
synthetic (clustered by topic and language, stored through the same int8 + centre + sign-bit code as real
ones); the query is embedded by the real model. Latency does not depend on what the vectors mean.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import re
import resource
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # BLAS threads fight ONNX Runtime's (ENVIRONMENT.md)

import numpy as np

from sentinel.embed.base import ModelIdentity
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.migrations import transaction
from sentinel.index.sync import sync
from sentinel.search import postings, search
from sentinel.search import view as search_view
from sentinel.search.centres import CENTRES_KEY
from sentinel.search.embedding import IDENTITY_KEY, identity_record, summary_passages
from sentinel.search.lexical import lexical_chunks, lexical_terms
from sentinel.search.vectors import Centres, quantise, sign_bits
from sentinel.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rss_timeline import RssTimeline
from synth_vault import LANGUAGES, generate
from tables import print_value_table

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "bench"
DIMS = 384
PLACE = re.compile(r"\b([A-Z]{2}) topic (\d+) page ")


def _existing(vault: Path, index: Path) -> Settings:
    """An index made elsewhere, after one sync: it must find nothing to do (a clone that does not match its
    files would be re-read here for hours)."""
    settings = Settings(vault=vault, index_path=index, _env_file=None)
    db = open_index(settings)
    stats = sync(settings, db)
    db.close()
    print(
        f"  synced in {stats.seconds:.0f}s ({stats.added} added, {stats.updated} read again, {stats.removed} removed)"
    )
    if stats.added or stats.updated or stats.removed:
        raise SystemExit("the index did not match its vault: measure a vault the index was made from")
    return settings


def _prepare(pages: int, cache: Path = CACHE) -> Settings:
    vault = cache / f"synth-{pages}"
    settings = Settings(vault=vault, index_path=cache / f"synth-{pages}.db", _env_file=None)
    if not (vault / ".complete").exists():
        started = time.perf_counter()
        generate(vault, pages)
        (vault / ".complete").write_text("")
        print(f"  wrote {pages} pages in {time.perf_counter() - started:.0f}s", flush=True)
    db = open_index(settings)
    started = time.perf_counter()
    stats = sync(settings, db)  # all at first; after an upgrade that re-cuts pages, those; else nothing
    counts = f"{stats.added} added, {stats.updated} read again, {stats.removed} removed"
    print(f"  synced in {time.perf_counter() - started:.0f}s ({counts})", flush=True)
    db.close()
    return settings


def _synthetic(seed: str, language: int, topic: int, axes: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "little"))
    v = 0.6 * axes[language] + 0.5 * axes[len(LANGUAGES) + topic % (len(axes) - len(LANGUAGES))]
    return v + 0.35 * rng.standard_normal(DIMS) / np.sqrt(DIMS)


def _fill_vectors(settings: Settings, identity: ModelIdentity) -> None:
    db = open_index(settings)
    with transaction(db):  # synthetic vectors belong to no model: claim the one that embeds the queries
        db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            (IDENTITY_KEY, json.dumps(identity_record(identity))),
        )
    # chunks without a vector: all of them at first, those a re-cut made new after an upgrade
    unfilled = db.execute(
        """SELECT c.text_hash, c.trail, c.path FROM chunks c LEFT JOIN chunk_vectors v
           ON v.text_hash = c.text_hash AND v.trail = c.trail WHERE v.id IS NULL"""
    ).fetchall()
    stored = {text for (text,) in db.execute("SELECT text FROM summary_vectors")}
    missing = {text: path for text, path in summary_passages(db).items() if text not in stored}
    if not unfilled and not missing:
        return
    started = time.perf_counter()
    axes = np.random.default_rng(7).standard_normal((len(LANGUAGES) + 500, DIMS))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    centres = Centres(axes[: len(LANGUAGES)] * 0.6, tuple(LANGUAGES))

    def place(path: str) -> tuple[int, int]:
        found = PLACE.search(path.rsplit("/", 1)[-1])  # "EN topic 12 page 3456.md", "c3 EN topic 12 page 3456.md"
        if found is None:
            raise SystemExit(f"{path}: not a page of bench/synth_vault.py")
        return LANGUAGES.index(found[1].lower()), int(found[2])

    def store(table: str, rows: list[tuple[tuple[str, ...], np.ndarray]]) -> None:
        vectors = np.stack([v for _, v in rows])
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        q, scales = quantise(vectors)
        which = centres.nearest(vectors)
        bits = sign_bits(centres.centred(vectors, which))
        columns = "text_hash, trail" if table == "chunk_vectors" else "text"
        marks = "?,?" if table == "chunk_vectors" else "?"
        db.executemany(
            f"INSERT OR IGNORE INTO {table} ({columns}, vec, scale, centre, bits, tokens, truncated) "
            f"VALUES ({marks},?,?,?,?,100,0)",
            [
                (*key, q[i].tobytes(), float(scales[i]), int(which[i]), bits[i].tobytes())
                for i, (key, _) in enumerate(rows)
            ],
        )

    with transaction(db):
        batch: list[tuple[tuple[str, ...], np.ndarray]] = []
        for text_hash, trail, path in unfilled:
            batch.append(((text_hash, trail), _synthetic(text_hash + trail, *place(path), axes)))
            if len(batch) == 20_000:
                store("chunk_vectors", batch)
                batch = []
        if batch:
            store("chunk_vectors", batch)
        summaries = [((text,), _synthetic(text, *place(path), axes)) for text, path in missing.items()]
        for start in range(0, len(summaries), 20_000):
            store("summary_vectors", summaries[start : start + 20_000])
        n = db.execute("SELECT COUNT(*) FROM chunk_vectors").fetchone()[0]
        for table in ("chunk_vectors", "summary_vectors"):
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (
                    CENTRES_KEY.format(table=table),
                    json.dumps({"n": n, "languages": list(LANGUAGES), "vectors": centres.vectors.tolist()}),
                ),
            )
        db.execute("UPDATE search_generation SET n = n + 1")
    print(f"  synthetic vectors stored in {time.perf_counter() - started:.0f}s", flush=True)


def _queries(settings: Settings, count: int) -> list[str]:
    """Queries of 2-5 words drawn from random chunks (some words common, some topical), deterministic."""
    db = open_index(settings, readonly=True)
    top = db.execute("SELECT MAX(id) FROM chunks").fetchone()[0]
    rng = np.random.default_rng(11)
    out: list[str] = []
    while len(out) < count:
        row = db.execute("SELECT text FROM chunks WHERE id >= ? LIMIT 1", (int(rng.integers(1, top)),)).fetchone()
        words = [w.strip(".,[]!#|") for w in row[0].split() if w.strip(".,[]!#|")]
        if len(words) >= 5:
            out.append(" ".join(rng.choice(words, size=int(rng.integers(2, 6)), replace=False)))
    return out


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"{statistics.median(values) * 1000:.1f} / {p95 * 1000:.1f}"


def _mark(timeline: RssTimeline | None, phase: str) -> None:
    if timeline is not None:
        timeline.mark(phase)


def _watch_parts(timeline: RssTimeline) -> None:
    """Name the parts of a view load and of a query that may make the peak (bench-only wrappers)."""
    from sentinel.search import vectors, view_rows

    try:
        from sentinel.search import doclists
    except ImportError:  # src before stop 46 (another version's, for a comparison): the same readers in postings
        doclists = None

    timeline.watch(view_rows, "_read", "view_rows._read (a view's rows, whole)")
    timeline.watch(view_rows.Table, "in_view_order", "Table.in_view_order (the rows put in view order)")
    timeline.watch(view_rows._Passages, "read", "_Passages.read (summary passages)")
    timeline.watch(view_rows, "_summary_table", "view_rows._summary_table")
    if doclists is not None:
        timeline.watch(doclists, "read", "doclists.read (a word's postings)")
        timeline.watch(doclists, "token_counts", "doclists.token_counts (every chunk's tokens)")
    else:
        timeline.watch(postings, "_postings", "postings._postings (a word's postings)")
        timeline.watch(postings, "_sizes", "postings._sizes (every chunk's tokens)")
    timeline.watch(vectors.store, "gathered", "store.gathered (candidates' int8 rows)")


def measure(
    settings: Settings,
    queries: int,
    embedder: OnnxEmbedder,
    lexical: str = "held",
    timeline: RssTimeline | None = None,
) -> list[tuple[str, str]]:
    _mark(timeline, "fill vectors (a child process)")
    # in a process of its own: the missing-vector check holds every summary passage (~0.5 GB at 1M pages), which
    # is not what a search process holds, and would be this process's peak RSS
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
        child.submit(_fill_vectors, settings, embedder.identity).result()
    _mark(timeline, "queries drawn")
    db = open_index(settings, readonly=True)
    texts = _queries(settings, queries)
    pages, chunks = db.execute("SELECT (SELECT COUNT(*) FROM pages), (SELECT COUNT(*) FROM chunks)").fetchone()
    _mark(timeline, "view load")
    started = time.perf_counter()
    view = search_view.current_view(db)
    cold = time.perf_counter() - started
    _mark(timeline, "warm-up searches")
    rows = [
        ("pages / chunks / embedded chunks", f"{pages} / {chunks} / {view.embedded_chunks}"),
        ("cold view load (s)", f"{cold:.2f}"),
    ]
    timings: dict[str, list[float]] = {}

    def timed(name: str, call: Callable[[], object]) -> object:
        wall, cpu = time.perf_counter(), time.process_time()
        out = call()
        timings.setdefault(name, []).append(time.perf_counter() - wall)
        timings.setdefault(name + " cpu", []).append(time.process_time() - cpu)
        return out

    staged = settings.model_copy(update={"search": settings.search.model_copy(update={"rerank": True})})
    search(db, settings, embedder, texts[0])  # warm-up
    search(db, staged, embedder, texts[0])
    _mark(timeline, "postings read (every query's common words)")
    if lexical == "fts5":  # the leg as before held postings
        postings.held_for = lambda db, words: None
    else:  # a search process that has seen these words before: their postings held, none being read
        for text in texts:
            lexical_chunks(db, lexical_terms(db, text, search_view.chunk_count(db)), 300)
        postings.settle()
        rows.append(("lexical postings held (MB)", f"{postings.held_bytes() / 1e6:.0f}"))
    _mark(timeline, "timed queries")
    # one way at a time over every query: a way's call never follows the same query's call of another way, whose
    # answers (the query's language, the units of its top pages: kept for the rest of one search) it would reuse
    for text in texts:
        timed("embed", lambda: embedder.embed([text], "query"))  # noqa: B023
    for text in texts:
        timed("lexical", lambda: lexical_chunks(db, lexical_terms(db, text, search_view.chunk_count(db)), 300))  # noqa: B023
    for rung in ("summary", "body"):
        for text in texts:
            found = timed(rung, lambda: search(db, settings, embedder, text, rung=rung))  # type: ignore[arg-type]  # noqa: B023
            if found.notes:  # type: ignore[attr-defined]
                print(f"  note on {rung!r} for {text!r}: {found.notes}")  # type: ignore[attr-defined]
        for text in texts:
            timed(f"{rung} staged", lambda: search(db, staged, embedder, text, rung=rung))  # type: ignore[arg-type]  # noqa: B023
    for name, label in (
        ("embed", "query embedding"),
        ("lexical", "lexical leg"),
        ("summary", "summary rung"),
        ("body", "body rung"),
        ("summary staged", "summary rung, second stage on (top 30)"),
        ("body staged", "body rung, second stage on (top 30)"),
    ):
        rows.append((f"{label} p50 / p95 wall (ms)", _ms(timings[name])))
        rows.append((f"{label} p50 / p95 CPU (ms)", _ms(timings[name + " cpu"])))
    rows += [
        ("peak RSS of this process (MB)", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}"),
        ("RSS now: anonymous / file-backed, e.g. the mapped vector store (MB)", _rss_parts()),
    ]
    return rows


def _rss_parts() -> str:
    """The process's resident memory split as Linux reports it: the mapped vector store's pages are file-backed
    page cache the kernel can reclaim, so the anonymous part is what a search process really holds."""
    try:
        status = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return "n/a (no /proc)"
    kib = {k: int(v.split()[0]) for k, _, v in (line.partition(":") for line in status) if k in ("RssAnon", "RssFile")}
    return f"{kib.get('RssAnon', 0) / 1024:.0f} / {kib.get('RssFile', 0) / 1024:.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, action="append", help="vault size; repeat for several")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument(
        "--lexical", choices=["held", "fts5"], default="held", help="the leg with held postings (warm), or FTS5 only"
    )
    parser.add_argument("--embed-model", type=Path, default=ROOT / "models" / "multilingual-e5-small")
    parser.add_argument(
        "--cache", type=Path, default=CACHE, help="where the synthetic vaults and indexes are kept (a copy elsewhere)"
    )
    parser.add_argument("--vault", type=Path, help="an indexed vault to measure as it is (with --index)")
    parser.add_argument("--index", type=Path, help="its index: synced (a no-op), missing vectors filled")
    parser.add_argument("--rss-timeline", type=Path, help="TSV of RSS every 50 ms, by phase; a table of phases")
    args = parser.parse_args(argv)
    timeline = RssTimeline(args.rss_timeline) if args.rss_timeline else None
    if timeline is not None:
        _watch_parts(timeline)
    _mark(timeline, "model load")
    embedder = OnnxEmbedder(args.embed_model, threads=int(os.environ.get("EMBED_THREADS", "1")))
    if args.vault or args.index:
        if not (args.vault and args.index) or args.pages:
            raise SystemExit("--vault and --index go together, without --pages")
        print(f"{args.vault}:", flush=True)
        _mark(timeline, "sync")
        rows = measure(_existing(args.vault, args.index), args.queries, embedder, args.lexical, timeline)
        print_value_table(str(args.vault), rows)
    else:
        for pages in args.pages or [10_000]:
            print(f"{pages} pages:", flush=True)
            _mark(timeline, "sync")
            rows = measure(_prepare(pages, args.cache), args.queries, embedder, args.lexical, timeline)
            print_value_table(f"{pages} pages", rows)
    if timeline is not None:
        timeline.stop()
        print_value_table(f"RSS by phase (MB; anon / file), samples in {args.rss_timeline}", timeline.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
